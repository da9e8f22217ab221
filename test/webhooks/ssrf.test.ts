import type { LookupAddress } from 'node:dns';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedAgent } from '../../src/workers/webhooks/guarded-agent.js';
import { classifyAddress, type AddressClass, type SsrfPolicy, validateWebhookUrl } from '../../src/core/webhooks/ssrf.js';
import { startReceiver, type Receiver } from './receiver.js';

const table: Array<[string, AddressClass | null]> = [
  // public
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['172.32.0.1', 'public'],
  ['100.128.0.1', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  ['2002:0808:0808::1', 'public'],
  ['64:ff9b::808:808', 'public'],
  // loopback
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::127.0.0.1', 'loopback'],
  ['::7f00:1', 'loopback'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['2002:7f00:1::', 'loopback'],
  // private
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fec0::1', 'private'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:a01:203', 'private'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b:1::1', 'private'],
  ['2002:c0a8:101::1', 'private'],
  // link-local
  ['169.254.1.1', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  // metadata
  ['169.254.169.254', 'metadata'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['fd00:ec2::254', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['168.63.129.16', 'metadata'],
  // CGNAT
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  // unspecified
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['::ffff:0.0.0.0', 'unspecified'],
  // multicast and broadcast
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  // reserved
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['192.0.0.170', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['2001::1', 'reserved'],
  ['100::1', 'reserved'],
  // not an IP
  ['localhost', null],
  ['127.1', null],
  ['1.2.3.256', null],
  ['', null],
];

describe('classifyAddress', () => {
  it.each(table)('%s -> %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

const dev: SsrfPolicy = { mode: 'development', allowHosts: [] };
const prod: SsrfPolicy = { mode: 'production', allowHosts: [] };

describe('validateWebhookUrl', () => {
  it.each([
    ['https://hooks.example.com/x', prod, null],
    ['http://127.0.0.1:9999/hook', dev, null],
    ['http://127.0.0.1:9999/hook', prod, 'refused by SSRF guard: loopback address'],
    ['http://2130706433/', prod, 'refused by SSRF guard: loopback address'],
    ['http://[::ffff:127.0.0.1]/', prod, 'refused by SSRF guard: loopback address'],
    ['http://10.0.0.5/', dev, 'refused by SSRF guard: private address'],
    ['http://169.254.169.254/latest', { mode: 'production', allowHosts: ['169.254.169.254'] } as SsrfPolicy, 'refused by SSRF guard: metadata address'],
    ['http://10.0.0.5/', { mode: 'production', allowHosts: ['10.0.0.5'] } as SsrfPolicy, null],
    ['ftp://example.com/', dev, 'unsupported url scheme (ftp); use http or https'],
    ['file:///etc/passwd', dev, 'unsupported url scheme (file); use http or https'],
    ['https://user:pw@example.com/', dev, 'credentials in the url are not allowed; use the signing secret'],
    ['not a url', dev, 'invalid url'],
  ])('%s', (url, policy, error) => {
    const r = validateWebhookUrl(url, policy);
    expect(r.ok ? null : r.error).toBe(error);
  });
});

describe('guarded agent (connect-time check)', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  /** Lets an error through as a value so the assertions can inspect it. */
  async function post(url: string, policy: SsrfPolicy, resolve?: (h: string) => Promise<LookupAddress[]>) {
    const agent = createGuardedAgent(policy, resolve ? { resolve } : {});
    try {
      const res = await request(url, { method: 'POST', body: '{}', dispatcher: agent });
      await res.body.text();
      return { status: res.statusCode, error: null };
    } catch (err) {
      return { status: null, error: err as Error & { code?: string } };
    } finally {
      await agent.close();
    }
  }

  it('development connects to a loopback receiver', async () => {
    expect((await post(receiver.url, dev)).status).toBe(200);
  });

  it('production refuses it before any TCP connection is made', async () => {
    const before = receiver.connections;
    const r = await post(receiver.url, prod);
    expect(r.error?.code).toBe('ERR_SSRF_REFUSED');
    expect(r.error?.message).toBe('refused by SSRF guard: loopback address');
    expect(receiver.connections).toBe(before);
  });

  it('production lets a name in allowHosts through', async () => {
    expect((await post(receiver.url, { mode: 'production', allowHosts: ['127.0.0.1'] })).status).toBe(200);
  });

  it('production refuses a name that resolves to loopback (localhost)', async () => {
    const before = receiver.connections;
    const r = await post(`http://localhost:${receiver.port}/hook`, prod);
    expect(r.error?.code).toBe('ERR_SSRF_REFUSED');
    expect(receiver.connections).toBe(before);
  });

  it('checks the address actually connected to: a rebinding name is judged by its connect-time answer', async () => {
    const answers: string[] = [];
    // A name that looked harmless when the endpoint was saved now answers with loopback.
    const rebinding = async (host: string): Promise<LookupAddress[]> => {
      answers.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const url = `http://rebind.test:${receiver.port}/hook`;
    expect(validateWebhookUrl(url, prod).ok).toBe(true);
    const before = receiver.connections;
    const refused = await post(url, prod, rebinding);
    expect(refused.error?.message).toBe('refused by SSRF guard: loopback address');
    expect(receiver.connections).toBe(before);
    expect(answers).toEqual(['rebind.test']);

    const count = receiver.requests.length;
    const allowed = await post(url, { mode: 'production', allowHosts: ['REBIND.test'] }, rebinding);
    expect(allowed.status).toBe(200);
    expect(receiver.requests.slice(count).map((r) => r.headers.host)).toEqual([`rebind.test:${receiver.port}`]);
  });

  it('refuses a name if any of its answers is internal', async () => {
    const mixed = async (): Promise<LookupAddress[]> => [
      { address: '127.0.0.1', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const r = await post(`http://mixed.test:${receiver.port}/hook`, dev, mixed);
    expect(r.error?.message).toBe('refused by SSRF guard: private address');
  });

  it('metadata stays refused even for an allowed name', async () => {
    const meta = async (): Promise<LookupAddress[]> => [{ address: '169.254.169.254', family: 4 }];
    const r = await post('http://meta.test/latest', { mode: 'production', allowHosts: ['meta.test'] }, meta);
    expect(r.error?.message).toBe('refused by SSRF guard: metadata address');
  });
});
