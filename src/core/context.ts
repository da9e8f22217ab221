import type { Logger } from 'pino';
import type { Db } from '../db/connection.js';
import type { NetworkProvider } from '../network/provider.js';
import type { Clock } from './clock.js';

export type Environment = 'development' | 'production';

/**
 * Everything a domain verb may touch arrives here: no module-level singletons.
 *
 * Two clocks: `clock` is wall time and drives API rate limits, daily network quotas, keys
 * and idempotency; `simClock` runs `--sim-speed` times faster and drives only the engine and
 * the simulated network (self-hosting.md, Rates and counters). At speed 1 they agree.
 */
export interface Ctx {
  db: Db;
  clock: Clock;
  log: Logger;
  env: Environment;
  simClock: Clock;
  network: NetworkProvider;
}
