// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';

const doc = readFileSync(new URL('../../docs/email.md', import.meta.url), 'utf8');

/** The ```json blocks of a piece of markdown, parsed, in order. */
const jsonBlocks = (markdown: string): unknown[] => [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string));

const start = doc.indexOf('\n## Sequences over both channels\n');
const worked = doc.slice(start);
/** Each worked sequence's `### ` title and its steps (the first JSON block under it). */
const sequences = worked
  .split('\n### ')
  .slice(1)
  .map((part) => ({ title: part.slice(0, part.indexOf('\n')), steps: jsonBlocks(part)[0] as { kind: string }[] }));

const kindsOf = (steps: readonly Record<string, unknown>[]): string[] =>
  steps.flatMap((s) => [s.kind as string, ...kindsOf([...((s.then as []) ?? []), ...((s.else as []) ?? [])])]);

/** The multichannel sequences the email page shows, copied as a user would, go through the real server and come back the same. */
describe('docs/email.md', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
  });
  afterAll(() => server.close());

  it('shows two multichannel sequences, each mixing LinkedIn steps with email steps and an email condition', () => {
    expect(start).toBeGreaterThan(0);
    expect(sequences.map((s) => s.title)).toEqual([
      '1. LinkedIn first, email for those who do not accept',
      '2. Email first, LinkedIn for those who do not answer',
    ]);
    for (const { steps } of sequences) {
      const kinds = kindsOf(steps);
      expect(kinds).toContain('email');
      expect(kinds).toContain('invite');
      expect(JSON.stringify(steps)).toContain('"condition":"email_replied"');
    }
  });

  for (const { title, steps } of sequences) {
    it(`creates "${title}" and reads the same steps back`, async () => {
      const created = await server.rest('/agents', { method: 'POST', body: JSON.stringify({ name: title, accountId: 'acc_ada', steps }) });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const strip = (list: Record<string, any>[]): unknown[] =>
        list.map(({ id: _id, ...s }) => (s.kind === 'if' ? { ...s, then: strip(s.then), else: strip(s.else) } : s));
      expect(strip((created.body as { steps: Record<string, any>[] }).steps)).toEqual(steps);
    });
  }
});
