import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A port free right now on loopback (the OS picks it; the child binds it a moment later). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** One GET; resolves with the status, or null when nothing answers yet. */
export function getStatus(url: string, timeoutMs = 1000): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

export interface Child {
  proc: ChildProcess;
  pid: number;
  url: string;
  /** Where the child's stderr goes (the server's JSON request log). */
  logPath: string | null;
  /** ms from spawn to the first 200 of the health URL. */
  startMs: number;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  args: string[];
  cwd: string;
  port: number;
  /** Polled until it answers 200. */
  healthPath: string;
  /** File for stderr (and stdout); null discards them. */
  logPath?: string | null;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/**
 * Spawns `node <args>` and polls its health URL every 5 ms until the first 200, timing spawn
 * to healthy. The child runs node directly (no npm), so its pid is the server's.
 */
export async function spawnServer(opts: SpawnOptions): Promise<Child> {
  const fd = opts.logPath ? openSync(opts.logPath, 'a') : null;
  const started = performance.now();
  const proc = spawn(process.execPath, opts.args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', fd ?? 'ignore', fd ?? 'ignore'],
  });
  if (fd !== null) closeSync(fd);
  let exited: number | null | undefined;
  proc.once('exit', (code) => {
    exited = code;
  });
  const url = `http://127.0.0.1:${opts.port}`;
  const deadline = started + (opts.timeoutMs ?? 30_000);
  for (;;) {
    if (exited !== undefined)
      throw new Error(`${opts.args.join(' ')} exited with ${exited} before it was healthy${opts.logPath ? `; see ${opts.logPath}` : ''}`);
    if ((await getStatus(url + opts.healthPath, 500)) === 200) break;
    if (performance.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${opts.args.join(' ')} was not healthy within ${opts.timeoutMs ?? 30_000} ms`);
    }
    await sleep(5);
  }
  const startMs = performance.now() - started;
  return {
    proc,
    pid: proc.pid as number,
    url,
    logPath: opts.logPath ?? null,
    startMs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited !== undefined) return resolve();
        const force = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        proc.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
}

/** Resident set size of a process in MB: /proc on Linux, ps elsewhere. */
export function rssMB(pid: number): number {
  const status = `/proc/${pid}/status`;
  if (existsSync(status)) {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(status, 'utf8'));
    if (m) return Number(m[1]) / 1024;
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; returns the samples (MB). */
export function sampleRss(pid: number, everyMs = 200): { stop(): number[] } {
  const samples = [rssMB(pid)];
  const timer = setInterval(() => {
    try {
      samples.push(rssMB(pid));
    } catch {
      // the process is gone; the samples so far stand
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return samples;
    },
  };
}
