import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { accessLine, accessLog, accessPath, createLogger, type AccessRecord } from '../../src/log.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('logs', () => {
  it('redact keys, bearer tokens and e-mail addresses', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (s: string) => lines.push(s) });
    log.info({ req: { headers: { 'x-api-key': 'sk_test_secret', authorization: 'Bearer tok' } }, lead: { email: 'ada@example.com' } }, 'hello bob@example.org');
    log.error({ err: new Error('failed for carol@example.net') }, 'boom');
    const text = lines.join('');
    expect(text).not.toContain('sk_test_secret');
    expect(text).not.toContain('Bearer tok');
    expect(text).not.toContain('ada@example.com');
    expect(text).not.toContain('bob@example.org');
    expect(text).not.toContain('carol@example.net');
    expect(text).toContain('[redacted]');
    expect(JSON.parse(lines[0]!).msg).toBe('hello [email]');
  });

  it('share one standard-error sink, so a process with many loggers adds one exit listener', () => {
    const before = process.listenerCount('exit');
    for (let i = 0; i < 20; i++) createLogger('silent');
    expect(process.listenerCount('exit') - before).toBeLessThanOrEqual(1);
    const after = process.listenerCount('exit');
    for (let i = 0; i < 20; i++) createLogger('silent');
    expect(process.listenerCount('exit')).toBe(after);
  });

  it('write access lines to the same destination, only at info or below, with e-mail addresses scrubbed from the path', () => {
    const lines: string[] = [];
    const log = createLogger('warn', { write: (s: string) => lines.push(s) });
    const access = accessLog(log);
    const record: AccessRecord = {
      requestId: 'r1',
      method: 'GET',
      path: accessPath('/public/v1/ada@example.com/leads'),
      status: 200,
      tool: 'list_leads',
      ms: 0.25,
    };
    access.request(record);
    expect(lines).toHaveLength(0);
    // The level is read per line: lowered while the server runs, the next request is logged.
    log.level = 'info';
    access.request(record);
    log.warn('after');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, service: 'outreach-mcp', path: '/public/v1/[email]/leads', tool: 'list_leads', msg: 'request' });
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: 40, msg: 'after' });
    expect(accessPath('/public/v1/credits')).toBe('/public/v1/credits');
  });

  it('spell an access line as pino spells the same record, byte for byte', () => {
    const records: AccessRecord[] = [
      { requestId: '6f1c2c9e-2b1f-4a57-9d1e-9b1f7f2b0c11', method: 'GET', path: '/public/v1/credits', status: 200, tool: 'get_credits', ms: 0.092086 },
      { requestId: 'client.id-7', method: 'POST', path: '/mcp', status: 202, tool: undefined, ms: 12 },
      { requestId: 'r', method: undefined, path: '/a "quoted" \\ path\u2028\u0001é', status: 404, tool: 'we"ird\n', ms: 1e-7 },
    ];
    for (const record of records) {
      const out: string[] = [];
      const reference = pino(
        { level: 'info', base: { service: 'outreach-mcp' }, timestamp: () => ',"time":1796000000000' },
        { write: (s: string) => out.push(s) },
      );
      reference.info(record, 'request');
      expect(accessLine(record, 1796000000000)).toBe(out[0]);
    }
  });

  it('give a logger made elsewhere its own access records', () => {
    const seen: unknown[] = [];
    const log = pino({ level: 'info' }, { write: (s: string) => seen.push(JSON.parse(s)) });
    accessLog(log).request({ requestId: 'r', method: 'GET', path: '/health', status: 200, tool: undefined, ms: 1 });
    expect(seen).toEqual([expect.objectContaining({ requestId: 'r', path: '/health', status: 200, msg: 'request' })]);
  });

  it('reach stderr within the turn, and on exit or a crash nothing pending is lost', () => {
    // The child writes through the built logger (dist), as `outreach start` does.
    const run = (tail: string): string[] => {
      const script = `import('./dist/log.js').then(({ createLogger }) => { const l = createLogger('info'); l.info('one'); l.info('two'); ${tail} })`;
      try {
        execFileSync(process.execPath, ['-e', script], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
        return [];
      } catch (err) {
        const stderr = String((err as { stderr?: string }).stderr ?? '');
        return stderr
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l).msg as string);
      }
    };
    expect(run("setImmediate(() => { l.info('three'); process.exit(3); });")).toEqual(['one', 'two', 'three']);
    expect(run("l.info('three'); throw new Error('boom');")).toEqual(['one', 'two', 'three']);
  });
});
