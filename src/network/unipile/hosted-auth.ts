import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../../core/clock.js';
import type { UnipileStore } from './store.js';
import type { UnipileHttp } from './http.js';
import { accountStatus, hasSalesNavigator, UnipileAccount } from './mapping.js';
import { parseOrUpstream } from './parse.js';

/**
 * Unipile's hosted auth: `POST /hosted/accounts/link` returns a page where the person signs
 * in to LinkedIn. We send our account id as `name`; when sign-in succeeds Unipile calls our
 * `notify_url` with `{ status, account_id, name }`. That call carries no secret we choose,
 * so it is only a hint: the account it names is fetched from Unipile's own API, and only
 * then is our `connecting` account linked to it.
 */

/** Where Unipile reports a finished hosted sign-in. */
export const HOSTED_AUTH_NOTIFY_PATH = '/webhooks/unipile/hosted-auth';
/** How long a sign-in link stays valid; Unipile also expires links at its daily restart. */
export const HOSTED_LINK_TTL_MS = 60 * 60 * 1000;

const HostedLinkResponse = z.looseObject({ url: z.string().url() });

export async function requestHostedLink(
  http: UnipileHttp,
  log: Logger,
  opts: { apiUrl: string; publicUrl: string; accountId: string; now: number },
): Promise<{ url: string }> {
  const expiresOn = new Date(opts.now + HOSTED_LINK_TTL_MS).toISOString();
  const body = await http.call({
    method: 'POST',
    path: '/hosted/accounts/link',
    json: {
      type: 'create',
      providers: ['LINKEDIN'],
      api_url: opts.apiUrl,
      expiresOn,
      notify_url: `${opts.publicUrl.replace(/\/+$/, '')}${HOSTED_AUTH_NOTIFY_PATH}`,
      name: opts.accountId,
    },
    idempotent: false,
    ctx: { kind: 'account', salesNav: false },
  });
  return { url: parseOrUpstream(HostedLinkResponse, body, log, 'POST /hosted/accounts/link').url };
}

const Notify = z.looseObject({ status: z.string(), account_id: z.string().min(1), name: z.string().min(1) });

export type HostedNotifyOutcome = 'linked' | 'ignored' | 'invalid';

/** Handles one notify call: verify the account at Unipile, then link it to ours. */
export async function handleHostedNotify(
  deps: { http: UnipileHttp; store: UnipileStore; clock: Clock; log: Logger },
  payload: unknown,
): Promise<HostedNotifyOutcome> {
  const parsed = Notify.safeParse(payload);
  if (!parsed.success) return 'invalid';
  const { status, account_id: providerAccountId, name: accountId } = parsed.data;
  if (status !== 'CREATION_SUCCESS' && status !== 'RECONNECTED') return 'ignored';
  const body = await deps.http.call({
    method: 'GET',
    path: `/accounts/${encodeURIComponent(providerAccountId)}`,
    idempotent: true,
    ctx: { kind: 'account', salesNav: false },
  });
  const account = parseOrUpstream(UnipileAccount, body, deps.log, 'GET /accounts/{id}');
  if ((account.type ?? 'LINKEDIN').toUpperCase() !== 'LINKEDIN') return 'ignored';
  const linked = deps.store.completeHostedSignIn(accountId, {
    providerAccountId: account.id,
    status: accountStatus(account),
    hasSalesNavigator: hasSalesNavigator(account),
  });
  deps.log.info({ accountId, linked }, 'unipile hosted sign-in reported');
  return linked ? 'linked' : 'ignored';
}

const MAX_NOTIFY_BYTES = 64 * 1024;

/**
 * The notify endpoint, in the shape the host mounts provider webhooks in (no API key, no
 * secret header: Unipile sends none we choose). The answer comes at once; the check against
 * Unipile's API and the link run in the background, and their outcome is logged.
 */
export function hostedNotifyWebhook(deps: Parameters<typeof handleHostedNotify>[0], path: string, pending: Set<Promise<unknown>>) {
  return {
    path,
    maxBytes: MAX_NOTIFY_BYTES,
    admit(call: { method: string }) {
      if (call.method !== 'POST')
        return {
          status: 405,
          headers: { Allow: 'POST' },
          body: { error: { code: 'validation_error', message: 'Hosted sign-in reports are POST requests.', details: {} } },
        };
      return null;
    },
    receive(_call: unknown, body: { ok: true; bytes: Buffer } | { ok: false; reason: 'too_large' | 'unreadable' }) {
      let payload: unknown;
      try {
        payload = body.ok ? JSON.parse(body.bytes.toString('utf8')) : undefined;
      } catch {
        payload = undefined;
      }
      if (!Notify.safeParse(payload).success) {
        return { status: 400, body: { error: { code: 'validation_error', message: 'Expected { status, account_id, name } as JSON.', details: {} } } };
      }
      const check = handleHostedNotify(deps, payload)
        .catch((err: unknown) => deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'unipile hosted sign-in check failed'))
        .finally(() => pending.delete(check));
      pending.add(check);
      return { status: 200, body: { received: true } };
    },
  };
}
