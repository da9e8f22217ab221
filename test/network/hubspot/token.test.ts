import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CrmError } from '../../../src/core/network/crm.js';
import { crmError, lead, type Rig, rig } from './helpers.js';

let r: Rig;
let written: string[];
const restore: (() => void)[] = [];

beforeEach(async () => {
  r = await rig();
  written = [];
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    const spy = vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
    restore.push(() => spy.mockRestore());
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const spy = vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      written.push(args.map(String).join(' '));
    });
    restore.push(() => spy.mockRestore());
  }
});
afterEach(async () => {
  for (const undo of restore.splice(0)) undo();
  await r.hs.stop();
});

const everything = (e: CrmError): string => [e.message, e.stack ?? '', JSON.stringify(e), String(e)].join('\n');

describe('the HubSpot token never leaves the adapter', () => {
  it('appears in no error and nothing written while every kind of failure happens', async () => {
    const token = r.hs.token;
    const errors: CrmError[] = [];
    r.hs.fail({ status: 429, retryAfter: 1 });
    errors.push(await crmError(r.crm.upsertContact(lead())));
    r.hs.fail({ status: 503 });
    errors.push(await crmError(r.crm.upsertContact(lead())));
    r.hs.fail({ drop: true });
    errors.push(await crmError(r.crm.upsertContact(lead())));
    // A proxy that echoes the request's Authorization header in its error.
    r.hs.fail({ status: 400, message: `bad request with Authorization: Bearer ${token}` });
    errors.push(await crmError(r.crm.upsertContact(lead())));
    await r.hs.goDown();
    errors.push(await crmError(r.crm.verify()));
    await r.hs.comeBack();
    r.env.HUBSPOT_TEST_TOKEN = `${token}-rotated`;
    errors.push(await crmError(r.crm.verify()));

    expect(errors).toHaveLength(6);
    for (const e of errors) {
      expect(everything(e)).not.toContain(token);
    }
    expect(errors[3]?.message).toContain('[redacted]');
    expect(written.join('\n')).not.toContain(token);
  });

  it('is sent only as a Bearer header', async () => {
    await r.crm.upsertContact(lead());
    for (const req of r.hs.requests) expect(req.path).not.toContain(r.hs.token);
    expect(r.hs.requests.every((req) => req.status !== 401)).toBe(true);
  });
});
