import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readConfigFile, UsageError } from '../../src/config.js';
import { type DraftInput, prepareDraft } from '../../src/core/drafts/prepare.js';
import { createDrafter, type DrafterConfig } from '../../src/network/drafter/index.js';
import { createContext } from '../../src/server.js';
import { silentLogger } from '../../src/log.js';
import { testCtx } from '../helpers.js';
import { noteFor, reviewWorkspace } from './helpers.js';
import { StandInModel } from './stand-in-model.js';

const KEY = 'sk-stand-in-secret-0123456789';

const note = (leadId: string, over: Partial<DraftInput> = {}): DraftInput =>
  noteFor(leadId, { text: 'Hi Grace, glad to connect.', template: 'Hi {{firstName}}, glad to connect.', ...over });

/** Every value of every table, as one string: the key must be nowhere in it. */
const everything = (ctx: ReturnType<typeof testCtx>): string => {
  const client = ctx.db.$client;
  const names = client.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  return JSON.stringify(names.map(({ name }) => client.prepare(`SELECT * FROM "${name}"`).all()));
};

describe('the optional model (a stand-in speaking chat completions on loopback)', () => {
  let model: StandInModel;
  const logged: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(line) });

  beforeAll(async () => {
    model = await new StandInModel().start();
  });
  afterAll(() => model.close());
  afterEach(() => {
    model.seen.length = 0;
  });

  const ctxWith = (config: Partial<DrafterConfig> = {}, vars: NodeJS.ProcessEnv = { DRAFTER_KEY: KEY }) => {
    const ctx = testCtx({ workspace: reviewWorkspace() });
    return Object.assign(ctx, {
      log: logger,
      drafter: createDrafter({ baseUrl: model.url, model: 'stand-in-1', apiKeyEnv: 'DRAFTER_KEY', instructions: 'Mention their work.', ...config }, vars),
    });
  };

  it('rewrites a new draft before it enters the queue, from the step, the lead and the instructions', async () => {
    model.behaviour = { kind: 'reply', text: '  Grace, your compiler work changed how we build. Glad to connect.  ' };
    const ctx = ctxWith();
    const d = await prepareDraft(ctx, note('lead_r0'));
    expect(d).toMatchObject({
      status: 'pending',
      text: 'Grace, your compiler work changed how we build. Glad to connect.',
      renderedText: 'Hi Grace, glad to connect.',
      drafterError: null,
    });
    expect(model.seen).toHaveLength(1);
    const [req] = model.seen;
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.body.model).toBe('stand-in-1');
    const system = req?.body.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = req?.body.messages.find((m) => m.role === 'user')?.content ?? '';
    expect(system).toContain('Mention their work.');
    expect(user).toContain('at most 300 characters');
    expect(user).toContain('fullName: Grace Hopper');
    expect(user).toContain('companyName: Navy Labs');
    expect(user).toContain('Hi {{firstName}}, glad to connect.');
    expect(user).toContain('Hi Grace, glad to connect.');
    // Asked again, the draft is not written again: no second call.
    await prepareDraft(ctx, note('lead_r0'));
    expect(model.seen).toHaveLength(1);
    // The key went to the model and nowhere else.
    expect(everything(ctx)).not.toContain(KEY);
    expect(logged.join('\n')).not.toContain(KEY);
  });

  it('a model that fails (HTTP 500) leaves the rendered text and records why', async () => {
    model.behaviour = { kind: 'status', status: 500 };
    const ctx = ctxWith();
    const d = await prepareDraft(ctx, note('lead_r1'));
    expect(d).toMatchObject({ status: 'pending', text: 'Hi Grace, glad to connect.', drafterError: 'The model answered HTTP 500.' });
    // One retry, as for any transient failure, and then the draft waits as rendered.
    expect(model.seen.length).toBe(2);
    expect(logged.join('\n')).not.toContain(KEY);
  });

  it('a model that does not answer in time leaves the rendered text and records the timeout', async () => {
    model.behaviour = { kind: 'hang', ms: 20_000 };
    const ctx = ctxWith({ timeoutSeconds: 0.5 });
    const d = await prepareDraft(ctx, note('lead_r2'));
    expect(d).toMatchObject({ text: 'Hi Grace, glad to connect.', drafterError: 'The model did not answer within 0.5 s.' });
  });

  it('its output is untrusted: too long, holding {{ or empty, it is not used', async () => {
    const ctx = ctxWith();
    model.behaviour = { kind: 'reply', text: 'word '.repeat(80) };
    expect(await prepareDraft(ctx, note('lead_r0'))).toMatchObject({
      text: 'Hi Grace, glad to connect.',
      drafterError: "The model's text is 399 characters; an invitation note takes at most 300.",
    });
    model.behaviour = { kind: 'reply', text: 'Hi {{firstName}}, nice to meet you.' };
    const braces = await prepareDraft(ctx, note('lead_r1'));
    expect(braces.text).toBe('Hi Grace, glad to connect.');
    expect(braces.drafterError).toMatch(/^The model's text still holds "\{\{"/);
    model.behaviour = { kind: 'reply', text: '   ' };
    expect((await prepareDraft(ctx, note('lead_r2'))).drafterError).toBe("The model's text was empty.");
    // A message may be longer than a note: the same answer fits there.
    model.behaviour = { kind: 'reply', text: 'word '.repeat(80) };
    const message = await prepareDraft(ctx, note('lead_r3', { stepId: 'stp_m', kind: 'message' }));
    expect(message).toMatchObject({ drafterError: null, text: 'word '.repeat(80).trim() });
  });

  it('a missing key variable calls nothing and says which variable', async () => {
    const ctx = ctxWith({}, {});
    const d = await prepareDraft(ctx, note('lead_r0'));
    expect(d.drafterError).toBe("The model's key is missing: the variable DRAFTER_KEY is not set.");
    expect(model.seen).toHaveLength(0);
  });

  it('without a key variable (a local model server) it sends no Authorization header', async () => {
    model.behaviour = { kind: 'reply', text: 'Hello Grace.' };
    const ctx = ctxWith({ apiKeyEnv: undefined }, {});
    expect((await prepareDraft(ctx, note('lead_r0'))).text).toBe('Hello Grace.');
    expect(model.seen[0]?.authorization).toBeUndefined();
  });

  it('without the config nothing calls a model', async () => {
    const plain = testCtx({ workspace: reviewWorkspace() });
    expect(plain.drafter).toBeUndefined();
    const d = await prepareDraft(plain, note('lead_r0'));
    expect(d).toMatchObject({ text: 'Hi Grace, glad to connect.', drafterError: null });
    expect(model.seen).toHaveLength(0);
    // The server's context has a drafter exactly when the config names one.
    expect(createContext({ dbPath: ':memory:', env: 'development', config: {} }, silentLogger()).drafter).toBeUndefined();
    const configured = createContext({ dbPath: ':memory:', env: 'development', config: { drafter: { baseUrl: model.url, model: 'm' } } }, silentLogger());
    expect(configured.drafter).toBeDefined();
  });
});

describe('the drafter config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'drafter-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const read = (drafter: unknown) => {
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ drafter }));
    return readConfigFile(path);
  };

  it('takes baseUrl, model, apiKeyEnv, instructions (and timeoutSeconds)', () => {
    const config = read({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3', apiKeyEnv: 'OPENAI_API_KEY', instructions: 'Short.', timeoutSeconds: 20 });
    expect(config.drafter).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3',
      apiKeyEnv: 'OPENAI_API_KEY',
      instructions: 'Short.',
      timeoutSeconds: 20,
    });
  });

  it.each([
    [{ baseUrl: 'http://x/v1', model: 'm', apiKey: 'sk-in-the-file' }, /drafter.*apiKey/],
    [{ baseUrl: 'ftp://x', model: 'm' }, /drafter\.baseUrl/],
    [{ baseUrl: 'http://x/v1' }, /drafter\.model/],
    [{ baseUrl: 'http://x/v1', model: 'm', apiKeyEnv: 'not a name' }, /drafter\.apiKeyEnv/],
  ])('refuses %j, naming the key', (drafter, message) => {
    expect(() => read(drafter)).toThrow(UsageError);
    expect(() => read(drafter)).toThrow(message);
  });
});
