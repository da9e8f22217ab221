import { pino, type DestinationStream, type Logger } from 'pino';

const SERVICE = 'outreach-mcp';
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/** Replaces e-mail addresses in every string of a log record, however deep. */
function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(EMAIL, '[email]');
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  if (value instanceof Error) return { type: value.name, message: scrub(value.message, depth + 1), stack: scrub(value.stack, depth + 1) };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrub(v, depth + 1);
  return out;
}

/** The one standard-error sink of the process, made on first use (see `stderr`). */
let sharedStderr: DestinationStream | undefined;

/**
 * Standard error, the lines of one turn of the event loop written together. One write per
 * line was a system call per request, a measurable share of a short request under load; now
 * lines wait only until the turn's check phase (setImmediate), and what is pending is written
 * when the process exits. Every logger of the process shares one sink: one exit listener, and
 * the lines of two loggers keep their order (a sink per logger added an exit listener each, 11
 * of them in a process that opened 11 workspaces).
 */
function stderr(): DestinationStream {
  sharedStderr ??= bufferedStderr();
  return sharedStderr;
}

function bufferedStderr(): DestinationStream {
  const out = pino.destination({ dest: 2, sync: true });
  let pending: string[] = [];
  const flush = () => {
    const lines = pending;
    pending = [];
    if (lines.length > 0) out.write(lines.join(''));
  };
  process.once('exit', flush);
  return {
    write(line: string) {
      if (pending.push(line) === 1) setImmediate(flush);
    },
  };
}

/** Where each logger made by createLogger writes, for its access logger: pino does not say. */
const destinations = new WeakMap<Logger, DestinationStream>();

/**
 * JSON logs on stderr (stdout belongs to the MCP stdio protocol). Keys, bearer tokens, the
 * Unipile API key and webhook secret, mail passwords, and e-mail addresses never reach a log line.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', destination: DestinationStream = stderr()): Logger {
  const log = pino(
    {
      level,
      base: { service: SERVICE },
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'req.headers.cookie',
          'headers["x-api-key"]',
          'headers.authorization',
          'apiKey',
          'key',
          'token',
          '*.apiKey',
          '*.token',
          '*.email',
          'email',
          // Unipile: the settings object, its config-file section, and the inbound webhook header.
          'unipile.apiKey',
          'unipile.inboundSecret',
          '*.unipile.apiKey',
          '*.unipile.inboundSecret',
          '*.*.unipile.apiKey',
          '*.*.unipile.inboundSecret',
          'inboundSecret',
          '*.inboundSecret',
          // Mail: a password never reaches a verb, but an error or options object of a mail client could hold one.
          'password',
          'pass',
          '*.password',
          '*.pass',
          '*.auth.pass',
          '*.*.auth.pass',
          'req.headers["x-outreach-webhook-secret"]',
          'headers["x-outreach-webhook-secret"]',
        ],
        censor: '[redacted]',
      },
      formatters: { log: (record) => scrub(record) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? (scrub(a) as string) : a)) as Parameters<typeof method>);
        },
      },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
  destinations.set(log, destination);
  return log;
}

/** What the front door knows of a finished request: the fields of its access line. */
export interface AccessRecord {
  requestId: string;
  method: string | undefined;
  path: string;
  status: number;
  tool: string | undefined;
  ms: number;
}

/** The per-request access log: one line a request, at `info`, on the process's log destination. */
export interface AccessLog {
  request(record: AccessRecord): void;
}

/**
 * The access log of `log`. Its records are built by the server from fields that hold no secrets
 * (request id, method, path, status, tool, duration; `accessPath` scrubs the one client-chosen
 * field), so the redaction, the deep e-mail scrub and the hooks are skipped, and the line is
 * written as `accessLine` spells it, without a logger between: under load, pino's own making of
 * the line was a measurable share of a short request (bench/METHOD.md, "The access line"). A
 * logger made elsewhere (tests) gets its own records, with all their scrubbing.
 */
export function accessLog(log: Logger): AccessLog {
  const destination = destinations.get(log);
  if (!destination) return { request: (record) => log.info(record, 'request') };
  return {
    request(record) {
      // The level is read at each line: an operator may change it while the server runs.
      if (log.isLevelEnabled('info')) destination.write(accessLine(record, Date.now()));
    },
  };
}

/**
 * An access record as the JSON line pino writes for `info(record, 'request')` on a logger with
 * the service as its base: the same keys in the same order, and a field that is undefined left out.
 */
export function accessLine(record: AccessRecord, time: number): string {
  let line = `{"level":30,"time":${time},"service":"${SERVICE}","requestId":${JSON.stringify(record.requestId)}`;
  if (record.method !== undefined) line += `,"method":${JSON.stringify(record.method)}`;
  line += `,"path":${JSON.stringify(record.path)},"status":${record.status}`;
  if (record.tool !== undefined) line += `,"tool":${JSON.stringify(record.tool)}`;
  return `${line},"ms":${record.ms},"msg":"request"}\n`;
}

/** A request path as the access log shows it: e-mail addresses (a client may put one in a path) scrubbed. */
export const accessPath = (path: string): string => (path.includes('@') ? path.replace(EMAIL, '[email]') : path);

/** A logger that writes nothing, for tests. */
export const silentLogger = (): Logger => pino({ level: 'silent' });
