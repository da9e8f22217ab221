import { z } from 'zod';
import { createApiKeyChecked, keyEnvFor, listApiKeys, revokeApiKey } from '../../core/auth/keys.js';
import { KeyScope } from '../../core/auth/scope.js';
import { IsoTimestamp } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { defineOperatorTool } from '../define.js';
import { pathId } from '../params.js';

/** An API key as the operator sees it: never the key itself, only its prefix. */
const ApiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  environment: z.enum(['test', 'live']),
  prefix: z.string(),
  createdAt: IsoTimestamp,
  lastUsedAt: IsoTimestamp.nullable(),
  revokedAt: IsoTimestamp.nullable(),
  /** Null: the key reaches everything. */
  scope: KeyScope.nullable(),
});

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export const listApiKeysTool = defineOperatorTool({
  name: 'list_api_keys',
  title: 'List API keys',
  description: 'Lists API keys, newest first, with prefix, environment and last use. Never the key.',
  input: z.strictObject({}),
  output: z.object({ keys: z.array(ApiKeyView) }),
  annotations: READ,
  handler: (ctx) => ({ keys: listApiKeys(ctx) }),
});

export const createApiKeyTool = defineOperatorTool({
  name: 'create_api_key',
  title: 'Create API key',
  description: 'Creates an API key and returns it once, in `secret`; only its digest is kept.',
  input: z.strictObject({
    name: z.string().trim().min(1).max(100).optional().describe('A label, 1-100 characters (default "<env> key").'),
    env: z.enum(['test', 'live']).optional().describe("test (sk_test_) or live (sk_live_); default: the server's environment."),
    scope: z
      .unknown()
      .optional()
      .describe(
        'What the key may reach: { toolsets?, readOnly?, campaignIds?, expiresAt? }; absent or null, everything. Checked in core (known toolsets, existing campaigns, a future expiry).',
      ),
  }),
  output: z.object({ key: ApiKeyView, secret: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: (ctx, input) => {
    const env = input.env ?? keyEnvFor(ctx.env);
    return createApiKeyChecked(ctx, env, input.name ?? `${env} key`, input.scope);
  },
});

export const revokeApiKeyTool = defineOperatorTool({
  name: 'revoke_api_key',
  title: 'Revoke API key',
  description: 'Revokes an API key at once, for every running server and every OAuth grant made with it.',
  input: z.strictObject({ keyId: pathId('key').describe('The key id (key_…), from list_api_keys.') }),
  output: z.object({ keyId: z.string(), revoked: z.literal(true) }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => {
    if (!revokeApiKey(ctx, input.keyId)) throw new ApiError('not_found', `No API key ${input.keyId}. List the keys for valid ids.`, { fields: ['keyId'] });
    return { keyId: input.keyId, revoked: true as const };
  },
});
