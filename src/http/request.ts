import { randomUUID } from 'node:crypto';
import type { Request } from 'express';

/** The origin the client reached, as `https://host:port` (behind a TLS proxy on loopback, its https origin). */
export const baseUrl = (req: Request): string => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/** `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(req: Request): string | undefined {
  const m = /^Bearer[ \t]+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  return m?.[1];
}

/**
 * The app setting that says a reverse proxy on this machine is configured (HostOptions.trustProxy):
 * only then does X-Forwarded-For name the client. Express's `trust proxy` stays `loopback` for
 * the scheme (a lie about https only changes the liar's own answer), but an address is what
 * throttles key on, and any program on the machine could otherwise claim a fresh one per request.
 */
export const TRUST_PROXY_SETTING = 'outreach trusts its proxy';

/**
 * The client's address, which failed-authentication and login throttles key on: the
 * connection's peer, or, when a trusted proxy is configured and the request came from it over
 * loopback, the address its X-Forwarded-For names (Express's `req.ip`). With no such header
 * proxy-addr's parsing is skipped: it was 2-3% of a short GET's server CPU.
 */
export const clientAddress = (req: Request): string | undefined =>
  req.headers['x-forwarded-for'] === undefined || req.app.get(TRUST_PROXY_SETTING) !== true ? req.socket.remoteAddress : req.ip;

/** A request id for a request that brought none of its own (X-Request-Id). */
export const newRequestId = (): string => randomUUID();

/** The id the front door gave a request (see ./front-door.ts). */
export const requestIdOf = (res: { locals: Record<string, unknown> }): string => String(res.locals.requestId ?? '');

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header's text. Node hands header values over one byte per character (Latin-1); a client
 * that sends non-ASCII text sends UTF-8, so the bytes are read as UTF-8, and the same words
 * mean the same thing in a header and in a JSON body. Null when the bytes are not UTF-8.
 */
export function headerText(value: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, as bytes
  if (/^[\x00-\x7f]*$/.test(value)) return value;
  try {
    return UTF8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return null;
  }
}
