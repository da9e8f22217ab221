/**
 * A worker's polling round: run at once on `start()`, then again `intervalMs` of wall time after
 * each round ends, until `stop()`. The timer never holds the process open. Workers on a fake clock
 * in tests call their round themselves instead.
 */
export class Repeat {
  private timer: NodeJS.Timeout | null = null;
  private on = false;

  constructor(
    private readonly intervalMs: number,
    private readonly round: () => void,
  ) {}

  get started(): boolean {
    return this.on;
  }

  start(): void {
    if (this.on) return;
    this.on = true;
    const loop = () => {
      if (!this.on) return;
      this.round();
      // A round may have stopped it.
      if (!this.on) return;
      this.timer = setTimeout(loop, this.intervalMs);
      this.timer.unref();
    };
    loop();
  }

  stop(): void {
    this.on = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
