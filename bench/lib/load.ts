import { openSync, readSync, closeSync, statSync } from 'node:fs';
import autocannon, { type Options, type Request, type Result } from 'autocannon';
import type { LoadRun } from './report.js';
import { summarize, type Summary } from './stats.js';

export interface LoadSpec {
  id: string;
  title: string;
  kind: LoadRun['kind'];
  /** Base URL of the target, e.g. http://127.0.0.1:3000 */
  url: string;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Rewrites each request before it is sent (a fresh body or path per request). */
  setupRequest?: (req: Request) => Request;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  baselines?: string[];
  /** The server's request log and which of its lines count, for server-side times. */
  serverLog?: { path: string; match: LogMatch };
}

/**
 * Waits until the target has answered everything the warm-up left in flight: autocannon stops
 * without waiting for its last responses, and a slow route (a batch) would otherwise still be
 * serving the warm-up during the measured window. Requests are served roughly in arrival order,
 * so a health check on a new connection answers after them.
 */
async function drain(url: string): Promise<void> {
  const res = await fetch(`${url}/health`);
  await res.arrayBuffer();
}

async function cannon(spec: LoadSpec, duration: number): Promise<Result> {
  const request: Request = { method: spec.method ?? 'GET', path: spec.path };
  if (spec.headers) request.headers = spec.headers;
  if (spec.body !== undefined) request.body = spec.body;
  if (spec.setupRequest) request.setupRequest = spec.setupRequest;
  const opts: Options = { url: spec.url, connections: spec.connections, duration, timeout: 30, requests: [request] };
  return autocannon(opts);
}

const fileSize = (path: string): number => statSync(path).size;

/** Request-log lines of one REST tool, or of one path (MCP requests name no tool). */
export type LogMatch = { tool: string } | { path: string };

/** The `ms` of the server's matching request-log lines, written after byte `from`. */
export function serverTimes(logPath: string, from: number, match: LogMatch): number[] {
  const to = fileSize(logPath);
  if (to <= from) return [];
  const buf = Buffer.alloc(to - from);
  const fd = openSync(logPath, 'r');
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  return parseRequestLog(buf.toString('utf8'), match);
}

/** Matching request-log lines (pino JSON, msg "request"), as their `ms`. */
export function parseRequestLog(text: string, match: LogMatch): number[] {
  const [field, value] = 'tool' in match ? (['tool', match.tool] as const) : (['path', match.path] as const);
  const needle = `"${field}":${JSON.stringify(value)}`;
  const out: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes(needle)) continue;
    try {
      const rec = JSON.parse(line) as { msg?: string; tool?: string; path?: string; ms?: number };
      if (rec.msg === 'request' && rec[field] === value && typeof rec.ms === 'number') out.push(rec.ms);
    } catch {
      // a line cut at the end of the window; the next window has it whole
    }
  }
  return out;
}

/** The figures of one autocannon result. */
export function loadFigures(result: Result): Pick<LoadRun, 'reqPerSec' | 'p50Ms' | 'p99Ms' | 'requests' | 'statusCounts' | 'errors'> {
  const statusCounts: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = Number(count);
  const requests = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  return {
    reqPerSec: result.duration > 0 ? requests / result.duration : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests,
    statusCounts,
    errors: result.errors,
  };
}

/** A warm-up (discarded), then the measured run, with server-side times from the log when given. */
export async function runLoad(spec: LoadSpec): Promise<LoadRun> {
  if (spec.warmupSeconds > 0) {
    await cannon(spec, spec.warmupSeconds);
    await drain(spec.url);
  }
  const logFrom = spec.serverLog ? fileSize(spec.serverLog.path) : 0;
  const result = await cannon(spec, spec.durationSeconds);
  let serverSide: Summary | undefined;
  if (spec.serverLog) {
    const times = serverTimes(spec.serverLog.path, logFrom, spec.serverLog.match);
    if (times.length) serverSide = summarize(times);
  }
  const run: LoadRun = {
    id: spec.id,
    title: spec.title,
    kind: spec.kind,
    connections: spec.connections,
    durationSeconds: spec.durationSeconds,
    ...loadFigures(result),
  };
  if (serverSide) run.serverSide = serverSide;
  if (spec.baselines) run.baselines = spec.baselines;
  return run;
}
