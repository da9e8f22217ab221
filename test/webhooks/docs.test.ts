import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/core/webhooks/schedule.js';
import { deliveryHeaders } from '../../src/core/webhooks/sign.js';

/** docs/webhooks.md is what receivers copy, so its snippet and table are checked against the code. */
const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

type Verifiers = {
  verifyStatic: (h: Record<string, string>) => boolean;
  verifyStandard: (h: Record<string, string>, raw: string, now?: number) => boolean;
};

async function loadSnippet(secret: string, tag: string): Promise<Verifiers> {
  const code = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (code === undefined) throw new Error('docs/webhooks.md lost its js snippet');
  const dir = mkdtempSync(join(tmpdir(), 'webhooks-doc-'));
  const file = join(dir, `verify-${tag}.mjs`);
  writeFileSync(file, `${code}\nexport { verifyStatic, verifyStandard };\n`);
  // The snippet reads its secret from the environment at load time, as a receiver's would.
  process.env.WEBHOOK_SECRET = secret;
  try {
    return (await import(pathToFileURL(file).href)) as Verifiers;
  } finally {
    delete process.env.WEBHOOK_SECRET;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('docs/webhooks.md', () => {
  it('the receiver snippet verifies real delivery headers for both secret kinds', async () => {
    const body = '{"type":"lead.tagged"}';
    const now = 1795262400;
    for (const [tag, secret] of [
      ['plain', 'any shared string'],
      ['whsec', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ] as const) {
      const snippet = await loadSnippet(secret, tag);
      const h = Object.fromEntries(
        Object.entries(deliveryHeaders({ eventId: 'evt_1', timestampSeconds: now, body, secret })).map(([k, v]) => [k.toLowerCase(), v]),
      );
      expect(snippet.verifyStatic(h)).toBe(true);
      expect(snippet.verifyStandard(h, body, now)).toBe(true);
      expect(snippet.verifyStandard(h, `${body} `, now)).toBe(false);
      expect(snippet.verifyStatic({ ...h, 'x-webhook-signature': 'guess' })).toBe(false);
    }
  });

  it('the retry table matches the schedule', () => {
    const rows = [...doc.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((m) => [Number(m[1]), (m[2] ?? '').trim()] as const);
    const unit: Record<string, number> = { s: 1_000, min: 60_000, h: 3_600_000 };
    const toMs = (text: string) =>
      text === '0' ? 0 : [...text.matchAll(/(\d+) (s|min|h)\b/g)].reduce((sum, m) => sum + Number(m[1]) * (unit[m[2] ?? ''] ?? NaN), 0);
    expect(rows.map(([n]) => n)).toEqual(Array.from({ length: MAX_ATTEMPTS }, (_, i) => i + 1));
    expect(rows.map(([, delay]) => toMs(delay))).toEqual([0, ...RETRY_DELAYS_MS]);
  });
});
