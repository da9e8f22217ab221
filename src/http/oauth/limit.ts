import type { RequestHandler } from 'express';
import type { Ctx } from '../../core/context.js';
import { clientAddress } from '../request.js';

export interface AddressLimit {
  windowMs: number;
  max: number;
  /** What is limited, for the error text. */
  what: string;
}

/** Addresses tracked at most; beyond it, windows that ended are dropped first, then the oldest. */
const MAX_ADDRESSES = 10_000;

/**
 * A fixed-window request limit per client address for the OAuth endpoints (the limits the
 * SDK's handlers would apply, made once at start so every origin shares them). A refused
 * request gets 429 `too_many_requests` with Retry-After.
 */
export function perAddressLimit(ctx: Ctx, limit: AddressLimit): RequestHandler {
  const windows = new Map<string, { start: number; count: number }>();
  return (req, res, next) => {
    const now = ctx.clock.now();
    const address = clientAddress(req) ?? 'unknown';
    let w = windows.get(address);
    if (!w || now - w.start >= limit.windowMs) {
      if (!w && windows.size >= MAX_ADDRESSES) evict(windows, now, limit.windowMs);
      w = { start: now, count: 0 };
      windows.set(address, w);
    }
    if (w.count >= limit.max) {
      const retryAfter = Math.ceil((w.start + limit.windowMs - now) / 1000);
      res
        .status(429)
        .set({ 'Retry-After': String(retryAfter), 'Cache-Control': 'no-store' })
        .json({ error: 'too_many_requests', error_description: `Too many ${limit.what} from this address; retry in ${retryAfter} s.` });
      return;
    }
    w.count += 1;
    next();
  };
}

function evict(windows: Map<string, { start: number }>, now: number, windowMs: number): void {
  for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
  while (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value as string);
}
