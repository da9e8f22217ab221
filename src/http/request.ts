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
 * `req.ip`, without proxy-addr's parsing on a request that names no forwarder: with no
 * X-Forwarded-For header, Express's `req.ip` is the socket's address whatever `trust proxy`
 * says (the REST edge reads it the same way). It was 2-3% of a short GET's server CPU.
 */
export const clientAddress = (req: Request): string | undefined => (req.headers['x-forwarded-for'] === undefined ? req.socket.remoteAddress : req.ip);

/** A request id for a request that brought none of its own (X-Request-Id). */
export const newRequestId = (): string => randomUUID();

/** The id the front door gave a request (see ./front-door.ts). */
export const requestIdOf = (res: { locals: Record<string, unknown> }): string => String(res.locals.requestId ?? '');
