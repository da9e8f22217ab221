/**
 * A worker's round asked for again before its poll interval is up (a finished attempt freed a
 * slot): however often it is asked, it runs once, on the next turn of the event loop, and only
 * while `active()` says the worker runs, both when asked (a worker drained by hand, not started,
 * queues nothing) and when the turn comes (it may have stopped since). A round that throws is
 * passed to `failed`, and the next poll tries again.
 */
export class Soon {
  private queued = false;

  constructor(
    private readonly active: () => boolean,
    private readonly round: () => void,
    private readonly failed: (err: unknown) => void,
  ) {}

  ask(): void {
    if (this.queued || !this.active()) return;
    this.queued = true;
    setImmediate(() => {
      this.queued = false;
      if (!this.active()) return;
      try {
        this.round();
      } catch (err) {
        this.failed(err);
      }
    });
  }
}
