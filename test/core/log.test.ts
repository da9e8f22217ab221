import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { accessLogger, accessPath, createLogger } from '../../src/log.js';

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

  it('write access lines to the same destination at the same level, with e-mail addresses scrubbed from the path', () => {
    const lines: string[] = [];
    const log = createLogger('warn', { write: (s: string) => lines.push(s) });
    const access = accessLogger(log);
    access.info({ path: accessPath('/public/v1/x') }, 'below the level');
    access.warn({ path: accessPath('/public/v1/ada@example.com/leads') }, 'request');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, service: 'outreach-mcp', path: '/public/v1/[email]/leads', msg: 'request' });
    expect(accessPath('/public/v1/credits')).toBe('/public/v1/credits');
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
