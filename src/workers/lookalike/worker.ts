import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import type { Ctx } from '../../core/context.js';
import { ApiError, toApiError } from '../../core/errors.js';
import { claimJobs, deferJob, findJob, finishJob, recordPage, releaseJob, renewLease, type JobOutcome, type JobRow } from '../../core/lookalike/jobs.js';
import type { LookalikePage } from '../../core/network/provider.js';
import { settledWithin } from '../grace.js';
import { Repeat } from '../repeat.js';

export interface LookalikeWorkerOptions {
  /** The lease holder name; unique per worker instance by default. */
  holder?: string;
  /** Jobs worked at once. */
  concurrency?: number;
  /** How often `start()` looks for due jobs (wall ms). */
  pollIntervalMs?: number;
  /** How long a claimed job is reserved; after a crash it is resumed once this passes. */
  leaseMs?: number;
  /** Candidates asked for per provider call (the provider may clamp it further). */
  pageSize?: number;
  /** First wait after a transient provider failure; doubles per attempt. */
  retryBaseMs?: number;
  /** Transient failures in a row before the job ends as failed (and refunds). */
  maxAttempts?: number;
  /** On `stop()`, how long a provider call in flight may finish before its job is left to the lease. */
  stopGraceMs?: number;
}

export const LOOKALIKE_DEFAULTS = {
  concurrency: 2,
  pollIntervalMs: 1_000,
  /** Longer than the slowest provider page (Unipile: 3 attempts of up to 30 s, plus backoff). */
  leaseMs: 150_000,
  pageSize: 100,
  retryBaseMs: 30_000,
  maxAttempts: 8,
  stopGraceMs: 5_000,
} as const;

/** Provider failures that a later retry may get past; any other ends the job. */
const TRANSIENT = new Set(['upstream_unavailable', 'network_daily_quota', 'account_disconnected', 'rate_limited']);

/**
 * Fills Lookalike campaigns from the network provider. Jobs are rows (core/lookalike/jobs.ts),
 * so the queue survives restarts and is shared by every process on the database (`outreach
 * start` and `outreach mcp` both run a worker): a job is leased to one worker at a time, each
 * page of leads commits with the job's cursor, and the refund commits with the job's end. The
 * p-queue bounds how many jobs run here at once. Leases and retries follow `ctx.clock`.
 */
export class LookalikeWorker {
  readonly holder: string;
  private readonly queue: PQueue;
  private readonly running = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private readonly o: Required<Omit<LookalikeWorkerOptions, 'holder'>>;
  private readonly repeat: Repeat;
  private stopping = false;
  /** Set when stop() gave up waiting: late provider answers are then left to the lease, unrecorded. */
  private abandoning = false;

  constructor(
    private readonly ctx: Ctx,
    options: LookalikeWorkerOptions = {},
  ) {
    this.holder = options.holder ?? `lookalike-${process.pid}-${randomUUID().slice(0, 8)}`;
    const { holder: _holder, ...rest } = options;
    this.o = { ...LOOKALIKE_DEFAULTS, ...rest };
    this.queue = new PQueue({ concurrency: this.o.concurrency });
    this.repeat = new Repeat(this.o.pollIntervalMs, () => this.tick());
  }

  /** Polls for due jobs until `stop()`. */
  start(): void {
    if (this.repeat.started) return;
    this.stopping = false;
    this.repeat.start();
  }

  /**
   * Stops claiming, lets the jobs in progress end their current page, and releases them so the
   * next worker resumes them at once. A provider call still hanging after the grace period is
   * abandoned: its job's lease runs out and another worker resumes it, as after a crash.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.repeat.stop();
    const outcome = await settledWithin(this.idle(), this.o.stopGraceMs);
    if (outcome === 'late') this.abandoning = true;
  }

  /** Claims due jobs for the free slots and starts them; returns how many were started. */
  tick(): number {
    if (this.stopping) return 0;
    let claimed: JobRow[];
    try {
      claimed = claimJobs(this.ctx, this.holder, this.o.leaseMs, this.o.concurrency - this.running.size, this.running);
    } catch (err) {
      this.ctx.log.error({ err }, 'lookalike jobs could not be claimed; will retry');
      return 0;
    }
    for (const job of claimed) {
      this.running.add(job.id);
      const done: Promise<void> = this.queue
        .add(() => this.run(job.id))
        .catch((err: unknown) => this.ctx.log.error({ err, jobId: job.id }, 'lookalike job stopped unexpectedly'))
        .finally(() => {
          this.running.delete(job.id);
          this.pending.delete(done);
          // A finished job frees a slot: the next due one need not wait for the poll.
          if (this.repeat.started) this.tick();
        });
      this.pending.add(done);
    }
    return claimed.length;
  }

  /** Resolves when no job is running here. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Runs every due job to its end (tests on a fake clock use this instead of `start()`). */
  async drain(): Promise<void> {
    while (this.tick() > 0 || this.pending.size > 0) await this.idle();
  }

  /** Works one job page by page until it is filled, exhausted, failed, deferred or taken away. */
  private async run(jobId: string): Promise<void> {
    for (;;) {
      const job = findJob(this.ctx, jobId);
      if (job?.state !== 'pending' || job.leasedBy !== this.holder) return;
      if (this.stopping) return releaseJob(this.ctx, jobId, this.holder);
      if (job.inserted >= job.reserved) return this.finish(job, 'filled');
      if (job.exhausted) return this.finish(job, 'exhausted');
      if (!renewLease(this.ctx, jobId, this.holder, this.o.leaseMs)) return;

      let page: LookalikePage;
      try {
        page = await this.ctx.network.lookalikeCandidates({
          seed: job.seed,
          jobTitleKeywords: JSON.parse(job.jobTitleKeywords) as string[],
          countries: JSON.parse(job.countries) as string[],
          cursor: job.cursor,
          limit: Math.min(this.o.pageSize, job.reserved - job.inserted),
        });
      } catch (err) {
        if (this.abandoning) return;
        return this.failed(job, err);
      }
      if (this.abandoning) return;
      let result;
      try {
        result = recordPage(this.ctx, jobId, this.holder, { fromCursor: job.cursor, ...page }, this.o.leaseMs);
      } catch (err) {
        this.ctx.log.error({ err, jobId }, 'lookalike page could not be recorded');
        return this.failed(job, err);
      }
      if (result === null) {
        this.ctx.log.warn({ jobId }, 'lookalike page dropped: the job moved on without this worker');
        return;
      }
      this.ctx.log.debug({ jobId, ...result }, 'lookalike page recorded');
    }
  }

  private finish(job: JobRow, outcome: JobOutcome, errorCode: string | null = null): void {
    const refunded = finishJob(this.ctx, job.id, this.holder, outcome, errorCode);
    if (refunded !== null) {
      this.ctx.log.info({ jobId: job.id, campaignId: job.campaignId, outcome, inserted: job.inserted, refunded, errorCode }, 'lookalike job finished');
    }
  }

  /** A transient failure is retried later with backoff, up to `maxAttempts`; any other ends the job. */
  private failed(job: JobRow, err: unknown): void {
    // Anything but a provider refusal (a crash, a database hiccup) is worth another try.
    const error = toApiError(err);
    if (err instanceof ApiError && !TRANSIENT.has(error.code)) {
      this.ctx.log.warn({ jobId: job.id, code: error.code }, 'lookalike job failed: the provider refused its query');
      return this.finish(job, 'failed', error.code);
    }
    if (job.attempts + 1 >= this.o.maxAttempts) {
      this.ctx.log.warn({ jobId: job.id, code: error.code, attempts: job.attempts + 1 }, 'lookalike job gave up after repeated provider failures');
      return this.finish(job, 'failed', error.code);
    }
    const backoff = this.o.retryBaseMs * 2 ** job.attempts;
    const wait = error.details.retryAfterSeconds !== undefined ? Math.max(backoff, error.details.retryAfterSeconds * 1000) : backoff;
    this.ctx.log.warn({ jobId: job.id, code: error.code, retryInMs: wait }, 'lookalike page failed; will retry');
    deferJob(this.ctx, job.id, this.holder, this.ctx.clock.now() + wait, error.code);
  }
}
