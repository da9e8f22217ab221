import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../context.js';
import { insertServerSecret, serverSecretValue } from './store.js';
import { randomBase62 } from '../ids.js';

/**
 * A named server secret, created on first use and kept in the database, so signatures
 * survive restarts and every process on the same database agrees.
 */
export function serverSecret(ctx: Ctx, name: string): string {
  const value = serverSecretValue(ctx, name);
  if (value !== undefined) return value;
  insertServerSecret(ctx, { name, value: randomBase62(43), createdAt: ctx.clock.now() });
  const created = serverSecretValue(ctx, name);
  if (created === undefined) throw new Error(`server secret ${name} could not be stored`);
  return created;
}

/** HMAC-SHA256 of `data` under `secret`, base64url. `purpose` keeps signatures of different kinds apart. */
export const sign = (secret: string, purpose: string, data: string): string => createHmac('sha256', secret).update(`${purpose}\n${data}`).digest('base64url');

export function signatureMatches(expected: string, presented: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
