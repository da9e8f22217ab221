import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { jsonSchema, type JsonObject } from '../tools/schemas.js';
import { IdempotencyKey, type Tool } from '../tools/define.js';
import { SERVER_NAME } from '../version.js';
import { MAX_BODY_BYTES } from '../http/body.js';

/** The spec's description version (public-api-v1.md, Versioning). */
export const API_VERSION = '1.0.0';

/** Every route can give these, whatever it does. */
const COMMON_ERRORS: readonly ErrorCode[] = [
  'validation_error',
  'unauthorized',
  // A scoped key (docs/keys.md): past its expiry, or calling outside its scope.
  'key_expired',
  'forbidden',
  'plan_required',
  'rate_limited',
  'upstream_unavailable',
];

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, invalid, revoked, expired or wrong-environment API key',
  403: "Refused for this workspace, account or balance, or outside the key's scope",
  404: 'Unknown resource',
  409: 'Conflict',
  413: 'Request body over 128 KiB',
  429: 'Rate limit or daily network quota reached; retry after Retry-After seconds',
  502: 'The network refused the action',
  503: 'Temporary failure; nothing was performed, retrying is safe',
};

/** `/campaigns/:campaignId` → `/campaigns/{campaignId}` */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

const ref = (name: string) => ({ $ref: `#/components/${name}` });

/** The error codes an operation can give, in the table's order. */
export function operationErrors(tool: Tool): ErrorCode[] {
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...(tool.errors ?? [])]);
  if (tool.pathParams.length) codes.add('not_found');
  // An Idempotency-Key reused with another body (or while its first call runs) is 409.
  if (tool.idempotent) codes.add('conflict');
  return ERROR_CODES.filter((c) => codes.has(c));
}

function errorResponses(tool: Tool): Record<string, JsonObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationErrors(tool)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  // The body limit is a validation_error with its own status (spec, Errors).
  if (tool.http.method !== 'GET') byStatus.set(413, ['validation_error']);
  const out: Record<string, JsonObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status) ?? [];
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
      headers: status === 429 ? { 'Retry-After': ref('headers/Retry-After'), ...rateLimitHeaders() } : rateLimitHeaders(),
      content: {
        'application/json': {
          schema: { allOf: [ref('schemas/Error'), { properties: { error: { properties: { code: { enum: codes } } } } }] },
        },
      },
    };
  }
  return out;
}

const rateLimitHeaders = () => ({ RateLimit: ref('headers/RateLimit'), 'RateLimit-Policy': ref('headers/RateLimit-Policy') });

function withoutKeys(schema: JsonObject, drop: readonly string[]): JsonObject {
  const properties = { ...((schema.properties as JsonObject | undefined) ?? {}) };
  for (const k of drop) delete properties[k];
  const required = ((schema.required as string[] | undefined) ?? []).filter((k) => !drop.includes(k));
  const { required: _r, ...rest } = schema;
  return { ...rest, properties, ...(required.length ? { required } : {}) };
}

function parameter(name: string, where: 'path' | 'query', schema: JsonObject, required: boolean): JsonObject {
  const { description, ...rest } = schema;
  return { name, in: where, required, ...(typeof description === 'string' ? { description } : {}), schema: rest };
}

/** Named shapes shared across operations, kept under components/schemas. */
type Shared = Map<string, JsonObject>;

/**
 * A JSON Schema's local `$defs` (a recursive shape, such as an agent's steps, cannot be inlined)
 * moved to components/schemas, with their refs pointing there: in an OpenAPI document a `#/…`
 * ref resolves against the document root, where `$defs` is not. Two different shapes never
 * share a name: the second would get a numbered one.
 */
function hoistDefs(schema: JsonObject, shared: Shared): JsonObject {
  const { $defs, ...rest } = schema;
  if ($defs === undefined || $defs === null || typeof $defs !== 'object') return schema;
  const renamed = new Map<string, string>();
  for (const [name, def] of Object.entries($defs as Record<string, JsonObject>)) {
    let target = name;
    for (let i = 2; shared.has(target) && JSON.stringify(shared.get(target)) !== JSON.stringify(def); i++) target = `${name}${i}`;
    renamed.set(name, target);
  }
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) {
      const local = k === '$ref' && typeof v === 'string' ? /^#\/\$defs\/(.+)$/.exec(v) : null;
      out[k] = local ? `#/components/schemas/${renamed.get(local[1] ?? '') ?? local[1]}` : rewrite(v);
    }
    return out;
  };
  for (const [name, def] of Object.entries($defs as Record<string, JsonObject>)) shared.set(renamed.get(name) ?? name, rewrite(def) as JsonObject);
  return rewrite(rest) as JsonObject;
}

function operation(tool: Tool, shared: Shared): JsonObject {
  const input = hoistDefs(jsonSchema(tool.input, 'input'), shared);
  const props = (input.properties as Record<string, JsonObject> | undefined) ?? {};
  const required = new Set((input.required as string[] | undefined) ?? []);
  const parameters: JsonObject[] = tool.pathParams.map((p) => parameter(p, 'path', props[p] ?? { type: 'string' }, true));
  let requestBody: JsonObject | undefined;
  if (tool.http.method === 'GET') {
    for (const [name, schema] of Object.entries(props)) {
      if (!tool.pathParams.includes(name)) parameters.push(parameter(name, 'query', schema, required.has(name)));
    }
  } else {
    const body = withoutKeys(input, tool.pathParams);
    requestBody = {
      required: Array.isArray(body.required) && body.required.length > 0,
      content: { 'application/json': { schema: body } },
    };
  }
  if (tool.idempotent) parameters.push(ref('parameters/Idempotency-Key'));
  const hints = [
    tool.annotations.readOnlyHint ? 'read-only' : null,
    tool.annotations.destructiveHint ? 'destructive' : null,
    tool.annotations.idempotentHint ? 'idempotent' : null,
  ].filter(Boolean);
  return {
    operationId: tool.name,
    summary: tool.title,
    description: `${tool.description}\n\nMCP tool \`${tool.name}\`${hints.length ? ` (${hints.join(', ')})` : ''}${tool.toolset ? `, in the ${tool.toolset} toolset (\`?toolsets=${tool.toolset}\` on the MCP URL)` : ''}.`,
    tags: [tagOf(tool)],
    // Which MCP toolset lists the tool (absent: the default listing).
    ...(tool.toolset ? { 'x-mcp-toolset': tool.toolset } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      '200': {
        description: 'Success.',
        headers: rateLimitHeaders(),
        content: { 'application/json': { schema: hoistDefs(jsonSchema(tool.output, 'output'), shared) } },
      },
      ...(tool.accepted
        ? {
            '202': {
              description: tool.accepted,
              headers: rateLimitHeaders(),
              content: { 'application/json': { schema: hoistDefs(jsonSchema(tool.output, 'output'), shared) } },
            },
          }
        : {}),
      ...errorResponses(tool),
    },
  };
}

/** Operations are grouped by the first segment of their route: campaigns, network, inbox… */
export const tagOf = (tool: Tool): string => tool.http.path.split('/')[1] ?? 'api';

const ErrorBody: JsonObject = {
  type: 'object',
  description: 'Every error. Clients branch on `error.code`, not on the HTTP status alone.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string', enum: [...ERROR_CODES] },
        message: { type: 'string', description: 'What went wrong and what to do next; written for people and models.' },
        details: {
          type: 'object',
          properties: {
            fields: {
              type: 'array',
              items: { type: 'string' },
              description: 'The offending inputs: path parameter, query parameter or JSON path such as `leads[3].networkUrl`.',
            },
            available: { type: 'integer', description: 'Balance available (insufficient credits).' },
            required: { type: 'integer', description: 'Balance required (insufficient credits).' },
            retryAfterSeconds: { type: 'integer', description: 'Seconds until a retry can pass; equals Retry-After.' },
            maxBytes: { type: 'integer', description: 'The body size limit (413).' },
          },
          additionalProperties: true,
        },
      },
    },
  },
};

/**
 * The OpenAPI 3.1 description of the REST API, generated from the tool registry and the
 * same zod schemas the pipeline validates with, so it cannot drift from the routes.
 */
export function openApiDocument(tools: readonly Tool[], origin: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const shared: Shared = new Map();
  for (const tool of tools) {
    const path = openApiPath(tool.http.path);
    paths[path] = { ...(paths[path] ?? {}), [tool.http.method.toLowerCase()]: operation(tool, shared) };
  }
  const tags = [...new Set(tools.map(tagOf))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Outreach Automation Public API',
      version: API_VERSION,
      summary: `The REST API of ${SERVER_NAME}: campaigns, leads, credits, accounts and activity for one workspace.`,
      description:
        'Every route is also an MCP tool with the same arguments (operationId is the tool name); both share rate limits, credits, idempotency and plan gates. ' +
        `Bodies are JSON, at most ${MAX_BODY_BYTES / 1024} KiB; unknown fields are rejected with 400 \`validation_error\`. ` +
        'Lists page with `limit` and `cursor` and answer `nextCursor`, null when nothing follows.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: `${origin}/public/v1` }],
    security: [{ ApiKey: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'sk_test_ keys on a development server, sk_live_ keys in production. Create one with `npx outreach keys create`.',
        },
      },
      schemas: { Error: ErrorBody, ...Object.fromEntries(shared) },
      parameters: {
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Retrying with the same key and body within 24 hours replays the first success; the same key with another body, while the first is in flight, or after the first was interrupted once it had begun its work (it is never run twice), is 409 `conflict`. Keys are scoped per API key.',
          schema: jsonSchema(IdempotencyKey, 'input'),
        },
      },
      headers: {
        'Retry-After': { description: 'Whole seconds until the refused request would pass.', schema: { type: 'integer', minimum: 0 } },
        RateLimit: {
          description: 'Remaining quota of the policies that applied (IETF draft-ietf-httpapi-ratelimit-headers), e.g. `"global";r=119;t=1`.',
          schema: { type: 'string' },
        },
        'RateLimit-Policy': {
          description: 'The policies that applied (IETF draft-ietf-httpapi-ratelimit-headers), e.g. `"global";q=120;w=60`.',
          schema: { type: 'string' },
        },
      },
    },
  };
}
