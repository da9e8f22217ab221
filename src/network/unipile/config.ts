import { z } from 'zod';

/** What the adapter needs to reach Unipile and to accept its webhooks. */
export interface UnipileConfig {
  /** `apiN.unipile.com:PORT` as shown in the Unipile dashboard, or a full `http(s)://host:port` origin. */
  dsn: string;
  apiKey: string;
  /** The value Unipile must send in `UNIPILE_SECRET_HEADER` on every webhook call. */
  inboundSecret: string;
  /**
   * This server's public base URL (`https://outreach.example.com`), where Unipile reports a
   * finished hosted sign-in. Needed only by connect_account; optional otherwise.
   */
  publicUrl?: string | undefined;
}

/** The custom header Unipile webhooks are configured to send (Unipile webhooks are not signed). */
export const UNIPILE_SECRET_HEADER = 'x-outreach-webhook-secret';

/** Shortest inbound secret we accept; anything shorter is guessable by brute force. */
export const INBOUND_SECRET_MIN = 24;

/** Header values must be visible ASCII: anything else cannot be sent by Unipile as a header. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * The `https://…/api/v1` base for a DSN. A bare `host:port` means HTTPS; an explicit scheme is
 * kept (so tests can point at plain HTTP on loopback). A trailing `/api/v1` is tolerated.
 * Null when the DSN is not a host with an optional port.
 */
export function baseUrlFromDsn(dsn: string): string | null {
  const text = dsn
    .trim()
    .replace(/\/+$/, '')
    .replace(/\/api\/v1$/, '');
  if (text === '' || /\s/.test(text)) return null;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return null;
  return `${url.origin}/api/v1`;
}

/** The `unipile` section of the config file. Every key is optional here: the environment may supply it. */
export const UnipileSection = z.strictObject({
  dsn: z
    .string()
    .refine((v) => baseUrlFromDsn(v) !== null, 'must be the Unipile DSN, e.g. api8.unipile.com:13851')
    .optional(),
  apiKey: z.string().regex(HEADER_SAFE, 'must be the Unipile access token (visible ASCII, no spaces)').optional(),
  inboundSecret: z
    .string()
    .regex(HEADER_SAFE, 'must be visible ASCII with no spaces (it is sent as a header)')
    .min(INBOUND_SECRET_MIN, `must be at least ${INBOUND_SECRET_MIN} characters`)
    .optional(),
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
});
export type UnipileSection = z.infer<typeof UnipileSection>;

/** Each setting with the environment variable and config key that supply it. */
export const UNIPILE_SETTINGS = [
  { key: 'dsn', env: 'UNIPILE_DSN', label: 'the Unipile DSN' },
  { key: 'apiKey', env: 'UNIPILE_API_KEY', label: 'the Unipile API key' },
  { key: 'inboundSecret', env: 'UNIPILE_INBOUND_SECRET', label: 'the Unipile webhook secret' },
] as const satisfies readonly { key: keyof UnipileConfig; env: string; label: string }[];

/** A complete config, or null when any part is missing. */
export function completeUnipileConfig(section: Partial<UnipileConfig>): UnipileConfig | null {
  const { dsn, apiKey, inboundSecret, publicUrl } = section;
  return dsn && apiKey && inboundSecret ? { dsn, apiKey, inboundSecret, publicUrl } : null;
}
