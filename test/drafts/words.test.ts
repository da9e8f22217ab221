import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DraftInput, prepareDraft } from '../../src/core/drafts/prepare.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { createDrafter } from '../../src/network/drafter/index.js';
import { testCtx } from '../helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';
import { StandInModel } from './stand-in-model.js';

const LONE = '\ud800';
const NUL = '\u0000';

const note = (leadId: string, over: Partial<DraftInput> = {}): DraftInput =>
  noteFor(leadId, { text: 'Hi Grace, glad to connect.', template: 'Hi {{firstName}}, glad to connect.', ...over });

/** The draft's text as SQLite holds it, read back through the driver. */
const storedText = (ctx: ReturnType<typeof testCtx>, id: string): string =>
  (ctx.db.$client.prepare('SELECT text FROM drafts WHERE id = ?').get(id) as { text: string }).text;

describe('words are stored as given: drafts', () => {
  let model: StandInModel;
  beforeAll(async () => {
    model = await new StandInModel().start();
  });
  afterAll(() => model.close());

  const ctxWithModel = () =>
    Object.assign(testCtx({ workspace: reviewWorkspace() }), {
      drafter: createDrafter({ baseUrl: model.url, model: 'stand-in-1', apiKeyEnv: 'DRAFTER_KEY' }, { DRAFTER_KEY: 'sk-stand-in-0123456789' }),
    });

  it("a model's text with a lone surrogate or a NUL is not stored: the draft keeps the rendered text, with drafterError", async () => {
    const ctx = ctxWithModel();
    model.behaviour = { kind: 'reply', text: `Grace, glad ${LONE} to connect.` };
    const lone = await prepareDraft(ctx, note('lead_r0'));
    expect(lone.text).toBe('Hi Grace, glad to connect.');
    expect(lone.drafterError).toMatch(/^The model's text holds a lone surrogate \(U\+D800\)/);
    model.behaviour = { kind: 'reply', text: `Grace,${NUL} glad to connect.` };
    const nul = await prepareDraft(ctx, note('lead_r1'));
    expect(nul.text).toBe('Hi Grace, glad to connect.');
    expect(nul.drafterError).toMatch(/^The model's text holds a NUL character/);
    expect(storedText(ctx, lone.id)).toBe('Hi Grace, glad to connect.');
  });

  it("an update_drafts item with such text or subject is that item's validation_error, and the others apply", async () => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    const a = await prepareDraft(ctx, note('lead_r0'));
    const b = await prepareDraft(ctx, note('lead_r1'));
    const c = await prepareDraft(ctx, note('lead_r2'));
    const out = updateDrafts(ctx, [
      { id: a.id, text: `Hi ${LONE}Grace` },
      { id: b.id, text: `Hi Alan${NUL}` },
      { id: c.id, text: 'Hi Katherine, good to meet you.' },
    ]);
    expect(out.results.map((r) => r.status)).toEqual(['validation_error', 'validation_error', 'updated']);
    expect(out.results[0]?.error?.message).toMatch(/^drafts\[0\]\.text holds a lone surrogate \(U\+D800\) at position 4/);
    expect(out.results[1]?.error?.message).toMatch(/^drafts\[1\]\.text holds a NUL character \(U\+0000\) at position 8/);
    expect(storedText(ctx, a.id)).toBe('Hi Grace, glad to connect.');
    expect(storedText(ctx, b.id)).toBe('Hi Grace, glad to connect.');
    expect(storedText(ctx, c.id)).toBe('Hi Katherine, good to meet you.');
    // A pair (an emoji) is a character like any other, stored and read back as given.
    const emoji = updateDrafts(ctx, [{ id: a.id, text: 'Hi Grace \ud83d\udc4b' }]);
    expect(emoji.results[0]?.status).toBe('updated');
    expect(storedText(ctx, a.id)).toBe('Hi Grace \ud83d\udc4b');
  });
});
