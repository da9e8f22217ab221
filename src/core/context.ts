import type { Logger } from 'pino';
import { closeDatabase, type Db } from '../db/connection.js';
import type { NetworkProvider } from './network/provider.js';
import type { Clock } from './clock.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { Faults } from './faults.js';
import type { SafetySettings } from './safety/types.js';
import type { Drafter } from './drafts/drafter.js';
import type { Triager } from './triage/triager.js';
import type { MailPort } from './network/mail.js';
import type { CrmSync } from './crm/config.js';

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
  /** Rate limits and per-account spacing: one limiter per server, shared by REST and MCP. */
  limits: RateLimiter;
  /** Failure injection for tests (see faults.ts); absent in every real context. */
  faults?: Faults;
  simClock: Clock;
  network: NetworkProvider;
  /** The server's public address, for links in emails (the one-click unsubscribe); set when the server listens. */
  publicUrl?: string;
  /** The mail adapter (SMTP and IMAP, or the simulator for simulated mailboxes); absent, no mailbox can be reached. */
  mail?: MailPort;
  /** The account-safety rules from the config (caps, warm-up, hours); absent means the defaults. */
  safety?: SafetySettings;
  /** The engine's invitation timeout (engine.invitationTimeoutDays): how long an agent written with connectionNote and messages waits for an acceptance when read as steps. Absent means the default, 21 days. */
  invitationTimeoutMs?: number;
  /**
   * The command that creates a key for this environment, quoted in 401 answers. It names no
   * path: whoever reads a 401 is not authenticated. Absent where there is no such command (tests).
   */
  keyCommand?: string;
  /** The optional model that rewrites new drafts (config `drafter`); absent, nothing calls a model. */
  drafter?: Drafter;
  /** The same model's triage of replies (config `drafter`); absent, replies get the rules' suggestions only. */
  triager?: Triager;
  /**
   * The campaigns this call may see, for a key held to campaigns (core/auth/scope.ts): the
   * pipeline sets it on the call's context and every campaign lookup, list and total reads
   * it. Absent: every campaign (unscoped keys, the operator, the workers).
   */
  campaigns?: ReadonlySet<string>;
  /** The CRM sync's settings (config `crm`); absent, nothing is queued for a CRM and nothing is pulled. */
  crm?: CrmSync;
  /** How long a CSV import's importing mark lasts unless renewed (default 30 s; tests shorten it). */
  importLeaseMs?: number;
}

/** Closes the context's database connection (a CLI command's end, the server's shutdown). */
export function closeContext(ctx: Pick<Ctx, 'db'>): void {
  closeDatabase(ctx.db);
}
