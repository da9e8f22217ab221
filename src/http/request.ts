import { randomUUID } from 'node:crypto';
import type { Request } from 'express';

/** The origin the client reached, as `https://host:port` (behind a TLS proxy on loopback, its https origin). */
export const baseUrl = (req: Request): string => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

/** `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(req: Request): string | undefined {
  const m = /^Bearer[ \t]+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  return m?.[1];
}

/** A request id for a request that brought none of its own (X-Request-Id). */
export const newRequestId = (): string => randomUUID();

/** The id the front door gave a request (see ./front-door.ts). */
export const requestIdOf = (res: { locals: Record<string, unknown> }): string => String(res.locals.requestId ?? '');
