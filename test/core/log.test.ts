import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';

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
});
