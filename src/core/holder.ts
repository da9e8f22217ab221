import { hostname } from 'node:os';

/** Where a lease holder runs: recorded with a lease so that its death can be proved. */
export interface HolderProcess {
  host: string;
  pid: number;
}

export const thisProcess = (): HolderProcess => ({ host: hostname(), pid: process.pid });

/**
 * True only when the holder is provably gone: it ran on this host and no process has its pid
 * now. Anything else (another host, a pid reused by a live process, no record) is not proof,
 * and the lease then lapses by its time alone. A pid on another machine sharing the database
 * file means nothing here, hence the host check.
 */
export function holderGone(holder: { host: string | null; pid: number | null }): boolean {
  if (holder.host === null || holder.pid === null || holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    // EPERM: a process exists but belongs to someone else, so it is not proof of death.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
