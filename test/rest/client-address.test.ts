import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAddress, TRUST_PROXY_SETTING } from '../../src/http/request.js';

/** An app with the host's trust-proxy setting that answers with both readings of the client's address. */
describe('clientAddress is req.ip, read without proxy-addr when no forwarder is named', () => {
  let server: ReturnType<ReturnType<typeof express>['listen']>;
  let base = '';
  beforeAll(async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    // A proxy on loopback is configured (trustProxy): X-Forwarded-For names the client.
    app.set(TRUST_PROXY_SETTING, true);
    app.get('/', (req, res) => {
      res.json({ ours: clientAddress(req), express: req.ip });
    });
    app.get('/unconfigured', (req, res) => {
      req.app.set(TRUST_PROXY_SETTING, false);
      const ours = clientAddress(req);
      req.app.set(TRUST_PROXY_SETTING, true);
      res.json({ ours });
    });
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const both = async (headers: Record<string, string> = {}) => (await (await fetch(`${base}/`, { headers })).json()) as { ours: string; express: string };

  it.each([
    ['no X-Forwarded-For', {}, '127.0.0.1'],
    ['a forwarder behind the loopback proxy', { 'X-Forwarded-For': '203.0.113.7' }, '203.0.113.7'],
    ['a chain', { 'X-Forwarded-For': '198.51.100.1, 203.0.113.7' }, '203.0.113.7'],
    ['an empty header', { 'X-Forwarded-For': '' }, '127.0.0.1'],
  ])('%s', async (_name, headers, expected) => {
    const { ours, express: theirs } = await both(headers);
    expect(ours).toBe(theirs);
    expect(ours).toBe(expected);
  });

  it('with no proxy configured, the connection is the client whatever X-Forwarded-For says', async () => {
    const res = await fetch(`${base}/unconfigured`, { headers: { 'X-Forwarded-For': '203.0.113.7' } });
    expect(((await res.json()) as { ours: string }).ours).toBe('127.0.0.1');
  });
});
