/**
 * Two engines run side by side on stepped simulated clocks, for parts that compare one case
 * against another (the CRM sync on against off, an email send against an invitation). Each
 * simulated minute one side ticks and then the other; which goes first alternates from tick to
 * tick, and both clocks move on together: a minute when either side had work, fifteen when
 * neither had. A tick with work is a few milliseconds, so a neighbour's load, a slower core or a
 * cold cache falls on both sides alike, where rounds of half a second taken in turn did not
 * (bench/METHOD.md, "in lockstep").
 */

const MINUTE = 60_000;

/** What an engine's tick reports that the driver and the figures read. */
interface TickReport {
  due: number;
  sends: number;
  inbound: number;
}

/** One tick, timed: the process's CPU time (user + system) and the wall time, in µs. */
export interface TimedTick {
  cpuUs: number;
  wallUs: number;
  sends: number;
  /** Whether the tick had work: leads due, sends or inbound events. */
  busy: boolean;
}

/** Runs one tick of an engine and times it. */
export async function timedTick(engine: { tick(): Promise<TickReport> }): Promise<TimedTick> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await engine.tick();
  const wallUs = (performance.now() - t0) * 1000;
  const c = process.cpuUsage(c0);
  return { cpuUs: c.user + c.system, wallUs, sends: r.sends, busy: r.due + r.sends + r.inbound > 0 };
}

export interface LockstepSide {
  clock: { now(): number; advance(ms: number): void };
  engine: { tick(): Promise<TickReport> };
}

/**
 * Ticks `sides` in lockstep until the first side's clock reaches `end`, handing each pair of
 * ticks to `each` in the sides' own order (not the order they ran in). Returns the pairs where
 * either side had work.
 */
export async function inLockstep(sides: readonly [LockstepSide, LockstepSide], end: number, each: (ticks: [TimedTick, TimedTick]) => void): Promise<number> {
  const [a, b] = sides;
  let busyPairs = 0;
  for (let i = 0; a.clock.now() < end; i++) {
    let ta: TimedTick;
    let tb: TimedTick;
    if (i % 2 === 0) {
      ta = await timedTick(a.engine);
      tb = await timedTick(b.engine);
    } else {
      tb = await timedTick(b.engine);
      ta = await timedTick(a.engine);
    }
    each([ta, tb]);
    const busy = ta.busy || tb.busy;
    if (busy) busyPairs++;
    for (const side of sides) side.clock.advance(busy ? MINUTE : 15 * MINUTE);
  }
  return busyPairs;
}
