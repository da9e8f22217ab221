import PQueue from 'p-queue';
import type { Ctx } from '../../core/context.js';
import { claimPushes, pushOnce, type ClaimedPush } from '../../core/crm/outbox.js';
import { pullDue, pullOnce } from '../../core/crm/pull.js';
import type { CrmPort } from '../../core/network/crm.js';
import type { Rng } from '../../core/webhooks/schedule.js';
import { settledWithin } from '../grace.js';
import { InFlight } from '../in-flight.js';
import { Repeat } from '../repeat.js';
import { Soon } from '../soon.js';

export interface CrmWorkerOptions {
  /** Pushes in flight at once (HubSpot allows about ten requests a second on a private app). */
  concurrency?: number;
  /** How often it looks for due pushes and whether the pull is due (wall ms). */
  pollIntervalMs?: number;
  /** How long a claimed push is reserved; after a crash it is made again once this passes. */
  leaseMs?: number;
  /** Jitter source for the retry schedule. */
  rng?: Rng;
  /** On `stop()`, how long pushes in flight may finish before they are left to their lease. */
  stopGraceMs?: number;
}

export const DEFAULT_CRM_CONCURRENCY = 4;
/** A push may take three CRM calls (a contact: two searches and a create) of up to 30 s each. */
const DEFAULT_LEASE_MS = 150_000;

/**
 * Drains the CRM outbox and polls the CRM for changed contacts. It only schedules: what is due,
 * the leases, the CRM calls and what is recorded are core's (core/crm). Started only with a
 * `crm` config; `start()` runs it on a timer, tests call `drain()` and `poll()`.
 */
export class CrmWorker {
  private readonly queue: PQueue;
  private readonly inFlight = new InFlight();
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly stopGraceMs: number;
  private readonly rng: Rng;
  private readonly repeat: Repeat;
  private pulling: Promise<void> | null = null;
  private stopped = false;
  /** Set when stop() gives up on pushes in flight: their outcome is then left to the lease. */
  private abandoning = false;
  /** Wake-ups between polls (a finished attempt frees a slot), one tick on the next turn of the event loop. */
  private readonly pump = new Soon(
    () => this.running,
    () => void this.tick(),
    (err) => this.ctx.log.error({ err }, 'crm worker round failed; retrying on the next poll'),
  );

  constructor(
    private readonly ctx: Ctx,
    private readonly port: CrmPort,
    options: CrmWorkerOptions = {},
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency ?? DEFAULT_CRM_CONCURRENCY });
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.stopGraceMs = options.stopGraceMs ?? 5_000;
    this.rng = options.rng ?? Math.random;
    this.repeat = new Repeat(this.pollIntervalMs, () => {
      this.pump.ask();
      if (!this.pulling && pullDueSafely(this.ctx)) {
        this.pulling = this.poll()
          .then(() => undefined)
          .finally(() => {
            this.pulling = null;
          });
      }
    });
  }

  private get running(): boolean {
    return this.repeat.started;
  }

  start(): void {
    if (this.stopped || !this.ctx.crm) return;
    this.repeat.start();
  }

  /**
   * Stops taking pushes and waits for those in flight; past the grace period they are left
   * unrecorded, and their lease makes them due again after a restart, exactly as after a crash.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.repeat.stop();
    const outcome = await settledWithin(Promise.all([this.idle(), this.pulling]), this.stopGraceMs);
    if (outcome === 'late') this.abandoning = true;
  }

  /** Starts every due push there is a free slot for; they run on in the background (see `idle()`). */
  tick(): number {
    const free = this.queue.concurrency - this.queue.pending - this.queue.size;
    const claimed = claimPushes(this.ctx, free, this.leaseMs, this.inFlight.ids);
    for (const push of claimed)
      this.inFlight.start(
        this.queue,
        push.id,
        () => this.carry(push),
        () => this.pump.ask(),
      );
    return claimed.length;
  }

  idle(): Promise<void> {
    return this.inFlight.idle();
  }

  /** Runs rounds until nothing is due at the clock's current time. Returns the pushes attempted. For tests and one-shot runs. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = this.tick();
      total += started;
      await this.idle();
      if (started === 0) return total;
    }
  }

  /** One pull now, whatever the interval. */
  poll(): ReturnType<typeof pullOnce> {
    return pullOnce(this.ctx, this.port).catch((err: unknown) => {
      this.ctx.log.warn({ err }, 'crm: the pull failed; trying again at the next interval');
      return { read: 0, ended: 0, unmatched: 0 };
    });
  }

  private async carry(push: ClaimedPush): Promise<void> {
    if (this.abandoning) return;
    try {
      const state = await pushOnce(this.ctx, this.port, push, this.rng, () => this.abandoning);
      this.ctx.log.debug({ pushId: push.id, kind: push.kind, attempt: push.attempt, state }, 'crm push');
    } catch (err) {
      // Recording failed (the database is closing): the lease makes the push due again.
      this.ctx.log.warn({ err, pushId: push.id }, 'crm: a push outcome could not be recorded; it is retried after its lease');
    }
  }
}

function pullDueSafely(ctx: Ctx): boolean {
  try {
    return pullDue(ctx);
  } catch (err) {
    ctx.log.error({ err }, 'crm: the pull state could not be read');
    return false;
  }
}
