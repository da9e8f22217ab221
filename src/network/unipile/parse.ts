import type { Logger } from 'pino';
import type { z } from 'zod';
import { networkError } from '../../core/network/provider.js';

/**
 * A 2xx body in the documented shape, or `upstream_unavailable`: an answer we cannot read is
 * Unipile's fault, not the caller's, and the log says which route drifted.
 */
export function parseOrUpstream<T extends z.ZodType>(schema: T, body: unknown, log: Logger, route: string): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  log.error({ route, issues: parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`) }, 'unipile answer not in the documented shape');
  throw networkError('upstream_unavailable', 'The network answered in an unexpected shape. Nothing was changed; retry later.');
}
