import { describe, expect, it } from 'vitest';
import { mailAddressOf } from '../../src/core/email/address.js';

describe('mailAddressOf: the one address a lead’s email field names', () => {
  it('takes a plain address or a named one, lower-cased', () => {
    expect(mailAddressOf('  Kim.Lee+cold@Example.co.uk ')).toBe('kim.lee+cold@example.co.uk');
    expect(mailAddressOf('Kim Lee <Kim@Example.com>')).toBe('kim@example.com');
    expect(mailAddressOf('"Lee, Kim" <kim@example.com>')).toBe('kim@example.com');
    expect(mailAddressOf('josé@exámple.com')).toBe('josé@exámple.com');
  });

  it('is null for no value, a list, a malformed value or a header smuggled in', () => {
    for (const raw of [
      null,
      undefined,
      '',
      '   ',
      'not-an-email',
      'kim@example.com, boss@example.com',
      'kim@example.com; boss@example.com',
      'kim@example.com;',
      'a@example.com, Boss <b@example.com>',
      'kim@localhost',
      'kim@@example.com',
      '.kim@example.com',
      'kim@example..com',
      'kim@-example.com',
      'a@example.com\r\nBcc: x@example.com',
      'Kim <kim@example.com>\nBcc: x@example.com',
      '<>',
    ]) {
      expect(mailAddressOf(raw), String(raw)).toBeNull();
    }
  });
});
