import { openSync, readSync, closeSync, statSync } from 'node:fs';
import autocannon, { type Options, type Request, type Result } from 'autocannon';
import { Agent, fetch as undiciFetch, type RequestInit, type Response } from 'undici';
import { median, summarize, type Summary } from './stats.js';

/** One autocannon run, against the server or a baseline. */
export interface LoadRun {
  id: string;
  title: string;
  kind: 'server' | 'baseline';
  connections: number;
  durationSeconds: number;
  reqPerSec: number;
  /** Client-observed latency (autocannon, whole milliseconds). */
  p50Ms: number;
  p99Ms: number;
  requests: number;
  statusCounts: Record<string, number>;
  errors: number;
  /** The server's own timing of the same requests, from its request log (arrival to response finished). */
  serverSide?: Summary;
  /** Ids of the baseline runs this run is compared with, by throughput. */
  baselines?: string[];
  /** Case-specific figures, e.g. leadsPerSec. */
  extra?: Record<string, number>;
  /**
   * req/s of each turn, in the order of the turns, when the run took turns with others
   * (runInterleaved): a ratio to another run of the same turns is then the median of the turns'
   * ratios (./report.ts, throughputRatio).
   */
  turns?: number[];
}

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

const oneShot = new Agent({ pipelining: 0 });

/**
 * A check's request (not a measured one), on a connection of its own. Kept alive, a connection
 * that sat idle while the bench process was busy in-process (seeding, an in-process case, a CLI
 * run it waits for) could be reused just as the server closed it: a whole run died on `read
 * ECONNRESET` at a check after the drafts case.
 */
export function checkFetch(url: string, init: RequestInit = {}): Promise<Response> {
  return undiciFetch(url, { ...init, dispatcher: oneShot });
}

/**
 * Waits until the target has answered everything the warm-up left in flight: autocannon stops
 * without waiting for its last responses, and a slow route (a batch) would otherwise still be
 * serving the warm-up during the measured window. Requests are served roughly in arrival order,
 * so a health check on a new connection answers after them.
 */
async function drain(url: string): Promise<void> {
  const res = await checkFetch(`${url}/health`);
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

/** One measured stretch of load on one target. */
export interface Slice {
  /** Seconds autocannon actually ran. */
  seconds: number;
  requests: number;
  statusCounts: Record<string, number>;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  /** The server's own times for the slice's requests (empty without a server log). */
  serverTimes: number[];
}

/** The figures of one autocannon result. */
export function sliceOf(result: Result, serverTimes: number[] = []): Slice {
  const statusCounts: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = Number(count);
  return {
    seconds: result.duration,
    requests: Object.values(statusCounts).reduce((a, b) => a + b, 0),
    statusCounts,
    errors: result.errors,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    serverTimes,
  };
}

/**
 * Slices of one target as one run: all requests over all seconds. autocannon keeps no
 * histogram to merge, so the latency percentiles are the median of the slices' own; the
 * server-side times are pooled.
 */
export function combine(spec: Pick<LoadSpec, 'id' | 'title' | 'kind' | 'connections' | 'baselines'>, slices: readonly Slice[]): LoadRun {
  if (slices.length === 0) throw new Error(`${spec.id}: no slices`);
  const seconds = slices.reduce((n, x) => n + x.seconds, 0);
  const requests = slices.reduce((n, x) => n + x.requests, 0);
  const statusCounts: Record<string, number> = {};
  for (const x of slices) for (const [code, n] of Object.entries(x.statusCounts)) statusCounts[code] = (statusCounts[code] ?? 0) + n;
  const times = slices.flatMap((x) => x.serverTimes);
  const run: LoadRun = {
    id: spec.id,
    title: spec.title,
    kind: spec.kind,
    connections: spec.connections,
    durationSeconds: seconds,
    reqPerSec: seconds > 0 ? requests / seconds : 0,
    p50Ms: median(slices.map((x) => x.p50Ms)),
    p99Ms: median(slices.map((x) => x.p99Ms)),
    requests,
    statusCounts,
    errors: slices.reduce((n, x) => n + x.errors, 0),
  };
  if (times.length) run.serverSide = summarize(times);
  if (spec.baselines) run.baselines = spec.baselines;
  return run;
}

async function warm(spec: LoadSpec): Promise<void> {
  if (spec.warmupSeconds <= 0) return;
  await cannon(spec, spec.warmupSeconds);
  await drain(spec.url);
}

/** One measured slice of load, then a drain. */
export async function runSlice(spec: LoadSpec, seconds: number): Promise<Slice> {
  const logFrom = spec.serverLog ? fileSize(spec.serverLog.path) : 0;
  const result = await cannon(spec, seconds);
  // Drained, so the next slice (maybe another target) does not share the machine with these requests.
  await drain(spec.url);
  return sliceOf(result, spec.serverLog ? serverTimes(spec.serverLog.path, logFrom, spec.serverLog.match) : []);
}

/** A warm-up (discarded), then the measured run. */
export async function runLoad(spec: LoadSpec): Promise<LoadRun> {
  await warm(spec);
  return combine(spec, [await runSlice(spec, spec.durationSeconds)]);
}

/**
 * Several targets in turns (A B C, C B A, A B C, …), each warmed first and each measured for
 * its `durationSeconds` split over the rounds. On a shared machine whose load drifts, every
 * target then meets the same drift, which is what their ratio needs; the order is reversed
 * every other round, so no target always follows the same neighbour (a server still busy
 * with what the last slice left, or one not yet back at full speed, costs the next one). Each
 * run keeps its turns' req/s, so a ratio between two of them is the median of the rounds' own.
 */
export async function runInterleaved(specs: readonly LoadSpec[], rounds: number): Promise<LoadRun[]> {
  for (const spec of specs) await warm(spec);
  const slices = specs.map((): Slice[] => []);
  for (let r = 0; r < rounds; r++) {
    const order = [...specs.entries()];
    if (r % 2 === 1) order.reverse();
    for (const [i, spec] of order) slices[i]!.push(await runSlice(spec, spec.durationSeconds / rounds));
  }
  return specs.map((spec, i) => ({ ...combine(spec, slices[i]!), turns: slices[i]!.map((x) => (x.seconds > 0 ? x.requests / x.seconds : 0)) }));
}
