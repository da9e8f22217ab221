import PQueue from 'p-queue';
import type { Dispatcher } from 'undici';
import type { Ctx } from '../../core/context.js';
import { claimDue, completeAttempt, endpointsWithDueDeliveries, fanOut, type ClaimedAttempt } from '../../core/webhooks/deliveries.js';
import { signingSecret } from '../../core/webhooks/endpoints.js';
import { DEFAULT_TIMEOUT_MS, deliverOnce, type DeliveryResult } from './deliver.js';
import type { Rng } from '../../core/webhooks/schedule.js';
import { deliveryHeaders } from '../../core/webhooks/sign.js';
import type { SsrfPolicy } from '../../core/webhooks/ssrf.js';
import { settledWithin } from '../grace.js';
import { InFlight } from '../in-flight.js';
import { Repeat } from '../repeat.js';
import { Soon } from '../soon.js';

export interface WebhookWorkerOptions {
  policy: SsrfPolicy;
  /** Defaults to a guarded agent for `policy`, which the worker then owns and closes. */
  dispatcher?: Dispatcher;
  /** Jitter source for the retry schedule. */
  rng?: Rng;
  /** Attempts in flight at once per endpoint, so one slow receiver cannot hold up the others. */
  concurrencyPerEndpoint?: number;
  /** How often `start()` looks for new events and due retries. */
  pollIntervalMs?: number;
  timeoutMs?: number;
  /** How long a claimed attempt is reserved; after a crash it is sent again once this passes. */
  leaseMs?: number;
  /** On `stop()`, how long in-flight attempts may finish before they are abandoned to the lease. */
  stopGraceMs?: number;
}

export const DEFAULT_CONCURRENCY_PER_ENDPOINT = 4;
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** Beyond the attempt's own timeout, so a live attempt never loses its lease. */
const LEASE_MARGIN_MS = 15_000;

/**
 * Drains the webhook outbox. All state is in SQLite (core/webhooks/deliveries.ts); this class
 * only moves attempts between those transactions and the network. `start()` runs it on a
 * timer; tests on a FakeClock call `drain()` instead.
 */
export class WebhookWorker {
  private readonly queues = new Map<string, PQueue>();
  /** Delivery ids in flight here; a lease that ran out on a fake clock must not hand them out twice. */
  private readonly inFlight = new InFlight();
  /** The given dispatcher, or the owned guarded agent once the first attempt made it. */
  private dispatcher: Promise<Dispatcher> | null;
  private readonly ownsDispatcher: boolean;
  private readonly policy: SsrfPolicy;
  private readonly rng: Rng;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly stopGraceMs: number;
  private stopped = false;
  /** Set when stop() gives up on in-flight attempts: their outcome is then left to the lease. */
  private abandoning = false;
  private readonly repeat: Repeat;
  /** Wake-ups between polls (a finished attempt frees a slot), one tick on the next turn of the event loop. */
  private readonly pump = new Soon(
    () => this.running,
    () => void this.tick(),
    (err) => this.ctx.log.error({ err }, 'webhook worker round failed; retrying on the next poll'),
  );

  constructor(
    private readonly ctx: Ctx,
    options: WebhookWorkerOptions,
  ) {
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ? Promise.resolve(options.dispatcher) : null;
    this.policy = options.policy;
    this.rng = options.rng ?? Math.random;
    this.concurrency = options.concurrencyPerEndpoint ?? DEFAULT_CONCURRENCY_PER_ENDPOINT;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? this.timeoutMs + LEASE_MARGIN_MS;
    this.stopGraceMs = options.stopGraceMs ?? 5_000;
    this.repeat = new Repeat(this.pollIntervalMs, () => this.pump.ask());
  }

  private get running(): boolean {
    return this.repeat.started;
  }

  /** Polls on the wall clock; a finished attempt also frees its slot for the next due one at once. */
  start(): void {
    if (this.stopped) return;
    this.repeat.start();
  }

  /**
   * Stops taking new attempts and waits for the ones in flight. Past the grace period those
   * attempts are left unrecorded (an owned dispatcher is destroyed to end them): their lease
   * makes them due again after a restart, exactly as after a crash.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.repeat.stop();
    const outcome = await settledWithin(this.idle(), this.stopGraceMs);
    const owned = this.ownsDispatcher ? this.dispatcher : null;
    if (outcome === 'idle') {
      if (owned) await (await owned).close();
      return;
    }
    // The database may close right after this returns, so late outcomes are not recorded.
    this.abandoning = true;
    if (owned) {
      await (await owned).destroy();
      await this.idle();
    }
  }

  /**
   * One round: fans out new events, then starts every due attempt there is a free slot for.
   * Returns what it did; the attempts run on in the background (see `idle()`).
   */
  tick(): { fannedOut: number; started: number } {
    const fannedOut = fanOut(this.ctx);
    let started = 0;
    for (const endpointId of endpointsWithDueDeliveries(this.ctx)) {
      const queue = this.queueFor(endpointId);
      const free = this.concurrency - queue.pending - queue.size;
      for (const claimed of claimDue(this.ctx, endpointId, free, this.leaseMs, this.inFlight.ids)) {
        started += 1;
        this.inFlight.start(
          queue,
          claimed.deliveryId,
          () => this.attempt(claimed),
          () => this.pump.ask(),
        );
      }
    }
    return { fannedOut, started };
  }

  /** Resolves when no attempt is in flight. */
  idle(): Promise<void> {
    return this.inFlight.idle();
  }

  /**
   * Runs rounds until nothing is due at the clock's current time, waiting for each round's
   * attempts. Returns the number of attempts made. For tests and one-shot runs.
   */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const { fannedOut, started } = this.tick();
      total += started;
      await this.idle();
      if (fannedOut === 0 && started === 0) return total;
    }
  }

  private queueFor(endpointId: string): PQueue {
    let queue = this.queues.get(endpointId);
    if (queue === undefined) {
      queue = new PQueue({ concurrency: this.concurrency });
      this.queues.set(endpointId, queue);
    }
    return queue;
  }

  private async attempt(claimed: ClaimedAttempt): Promise<void> {
    const result = await this.send(claimed);
    if (this.abandoning) return;
    try {
      const state = completeAttempt(this.ctx, claimed, result, this.rng);
      const fields = {
        eventId: claimed.eventId,
        deliveryId: claimed.deliveryId,
        endpointId: claimed.endpointId,
        attempt: claimed.attempt,
        status: result.status,
        state,
      };
      if (result.ok) this.ctx.log.debug(fields, 'webhook delivered');
      else this.ctx.log.warn({ ...fields, error: result.error }, 'webhook attempt failed');
    } catch (err) {
      // The lease still holds the delivery, so it is retried once it runs out.
      this.ctx.log.error({ err, deliveryId: claimed.deliveryId }, 'could not record a webhook attempt');
    }
  }

  /**
   * The guarded agent is made on the first attempt: undici is over a hundred modules, and a
   * server whose workspace has no endpoint never sends anything.
   */
  private agent(): Promise<Dispatcher> {
    this.dispatcher ??= import('./guarded-agent.js').then(
      ({ createGuardedAgent }) => createGuardedAgent(this.policy),
      (err: unknown) => {
        this.dispatcher = null;
        throw err;
      },
    );
    return this.dispatcher;
  }

  private async send(claimed: ClaimedAttempt): Promise<DeliveryResult> {
    let headers: Record<string, string>;
    try {
      // Read per attempt, so a rotated secret applies at once, to retries as well.
      headers = deliveryHeaders({
        eventId: claimed.eventId,
        timestampSeconds: Math.floor(this.ctx.clock.now() / 1000),
        body: claimed.body,
        secret: signingSecret(this.ctx),
      });
    } catch {
      return unsent('unusable signing secret; set a new one with: npx outreach webhooks rotate-secret');
    }
    let dispatcher: Dispatcher;
    try {
      dispatcher = await this.agent();
    } catch {
      return unsent('the HTTP client could not be loaded');
    }
    return deliverOnce({ url: claimed.url, body: claimed.body, headers, dispatcher, clock: this.ctx.clock, timeoutMs: this.timeoutMs });
  }
}

const unsent = (error: string): DeliveryResult => ({
  ok: false,
  status: null,
  durationMs: 0,
  error,
  responseBody: null,
  retryAfterSeconds: null,
  disableEndpoint: false,
});
