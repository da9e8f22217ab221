// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';

/** Agents written with steps, over REST and over MCP (?toolsets=manage). */
describe('agents with steps', () => {
  let server: TestServer;
  let mcp: Client;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    mcp = await server.mcp(undefined, 'toolsets=manage');
  });
  afterAll(() => server.close());

  const send = (path: string, body: unknown, method = 'POST') => server.rest(path, { method, body: JSON.stringify(body) });

  const sequence = [
    { kind: 'visit' },
    { kind: 'invite', note: 'Hi {{firstName|there}}', variants: [{ note: 'Hello {{firstName|there}}' }] },
    {
      kind: 'if',
      condition: 'accepted',
      withinHours: 168,
      then: [
        { kind: 'wait', hours: 24 },
        { kind: 'message', text: 'Thanks {{firstName|there}}!' },
      ],
      else: [{ kind: 'withdraw' }, { kind: 'inmail', subject: 'For {{companyName|your team}}', text: 'Hi {{firstName|there}}' }],
    },
  ];

  it('creates an agent from steps; get, list and both transports return steps with ids and the derived older fields', async () => {
    const r = await send('/agents', { name: 'Branching', accountId: 'acc_ada', steps: sequence });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'Branching',
      connectionNote: 'Hi {{firstName|there}}',
      messages: [{ text: 'Thanks {{firstName|there}}!', delayHours: 24 }],
      steps: [
        { kind: 'visit' },
        { kind: 'invite', note: 'Hi {{firstName|there}}', variants: [{ note: 'Hello {{firstName|there}}' }] },
        {
          kind: 'if',
          condition: 'accepted',
          withinHours: 168,
          then: [{ kind: 'wait', hours: 24 }, { kind: 'message' }],
          else: [{ kind: 'withdraw' }, { kind: 'inmail' }],
        },
      ],
    });
    expect(r.body.steps[2].then[1].id).toMatch(/^stp_/);
    const id = r.body.id as string;
    expect((await server.rest(`/agents/${id}`)).body).toEqual(r.body);
    expect((await callTool(mcp, 'get_agent', { agentId: id })).body).toEqual(r.body);
    const listed = (await server.rest('/agents?limit=100')).body.agents.find((a: { id: string }) => a.id === id);
    expect(listed).toEqual(r.body);
    const m = await callTool(mcp, 'create_agent', { name: 'Over MCP', accountId: 'acc_ada', steps: sequence });
    expect(m.isError).toBe(false);
    expect(m.body.steps).toHaveLength(3);
  });

  it('an agent written with connectionNote and messages returns steps too, with stable ids', async () => {
    const r = await send('/agents', {
      name: 'Classic',
      accountId: 'acc_ada',
      connectionNote: 'Hi',
      messages: [
        { text: 'One', delayHours: 0 },
        { text: 'Two', delayHours: 72 },
      ],
    });
    expect(r.body.steps).toMatchObject([
      { kind: 'invite', note: 'Hi' },
      {
        kind: 'if',
        condition: 'accepted',
        withinHours: 21 * 24,
        then: [
          { kind: 'message', text: 'One' },
          { kind: 'wait', hours: 72 },
          { kind: 'message', text: 'Two' },
        ],
        else: [{ kind: 'withdraw' }],
      },
    ]);
    const again = await server.rest(`/agents/${r.body.id}`);
    expect(again.body.steps).toEqual(r.body.steps);
    // Replacing the messages keeps each position's id: a lead at the second message stays at the second message.
    const u = await send(
      `/agents/${r.body.id}`,
      {
        messages: [
          { text: 'Uno', delayHours: 0 },
          { text: 'Dos', delayHours: 72 },
        ],
      },
      'PATCH',
    );
    expect(u.body.steps[1].then[2].id).toBe(r.body.steps[1].then[2].id);
    expect(u.body.steps[1].then[2].text).toBe('Dos');
  });

  it('giving steps with connectionNote or messages is 400 naming steps, on both transports', async () => {
    const body = { name: 'Both', accountId: 'acc_ada', connectionNote: 'Hi', steps: [{ kind: 'visit' }] };
    const r = await send('/agents', body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_error', details: { fields: ['steps'] } });
    const m = await callTool(mcp, 'create_agent', body);
    expect(m.body.error.details.fields).toEqual(['steps']);
    const created = await send('/agents', { name: 'S', accountId: 'acc_ada', steps: [{ kind: 'visit' }] });
    const u = await send(`/agents/${created.body.id}`, { messages: [], steps: [{ kind: 'visit' }] }, 'PATCH');
    expect(u.body.error.details.fields).toEqual(['steps']);
  });

  it('names the path of a bad step over REST and MCP', async () => {
    const bad = [{ kind: 'visit' }, { kind: 'if', condition: 'accepted', withinHours: 24, then: [{ kind: 'message', text: 'Hi {{nickname}}' }] }];
    const r = await send('/agents', { name: 'Bad', accountId: 'acc_ada', steps: bad });
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields).toEqual(['steps[1].then[0].text']);
    const m = await callTool(mcp, 'create_agent', { name: 'Bad', accountId: 'acc_ada', steps: bad });
    expect(m.body.error.details.fields).toEqual(['steps[1].then[0].text']);
    const shape = await send('/agents', { name: 'Bad', accountId: 'acc_ada', steps: [{ kind: 'wait', hours: 0 }] });
    expect(shape.body.error.details.fields).toEqual(['steps[0].hours']);
    const twoInvites = await send('/agents', { name: 'Bad', accountId: 'acc_ada', steps: [{ kind: 'invite' }, { kind: 'invite' }] });
    expect(twoInvites.body.error.details.fields).toEqual(['steps[1]']);
    const tooMany = await send('/agents', { name: 'Bad', accountId: 'acc_ada', steps: Array.from({ length: 26 }, () => ({ kind: 'visit' })) });
    expect(tooMany.body.error.details.fields).toEqual(['steps']);
  });

  it('update_agent keeps the ids sent back, mints new ones, and refuses the older fields on a steps agent', async () => {
    const created = (await send('/agents', { name: 'Evolving', accountId: 'acc_ada', steps: sequence })).body;
    const keep = created.steps[1].id as string;
    const u = await send(
      `/agents/${created.id}`,
      { steps: [{ id: keep, kind: 'invite', note: 'Changed' }, { kind: 'like_post' }, { id: created.steps[0].id, kind: 'visit' }] },
      'PATCH',
    );
    expect(u.status).toBe(200);
    expect(u.body.steps.map((s: { id: string }) => s.id)).toEqual([keep, expect.stringMatching(/^stp_/), created.steps[0].id]);
    expect(u.body.steps[1].id).not.toBe(keep);
    expect(u.body).toMatchObject({ connectionNote: 'Changed', messages: [] });
    const foreign = await send(`/agents/${created.id}`, { steps: [{ id: 'stp_somewhereelse', kind: 'visit' }] }, 'PATCH');
    expect(foreign.body.error.details.fields).toEqual(['steps[0].id']);
    const older = await send(`/agents/${created.id}`, { messages: [{ text: 'x', delayHours: 1 }] }, 'PATCH');
    expect(older.status).toBe(400);
    expect(older.body.error.details.fields).toEqual(['messages']);
    // A rename leaves the steps as they are.
    const renamed = await send(`/agents/${created.id}`, { name: 'Renamed' }, 'PATCH');
    expect(renamed.body.steps).toEqual(u.body.steps);
  });

  it('a legacy agent becomes a steps agent by an update with steps, keeping the ids sent back', async () => {
    const legacy = (await send('/agents', { name: 'Old', accountId: 'acc_ada', connectionNote: 'Hi', messages: [{ text: 'One', delayHours: 0 }] })).body;
    const steps = structuredClone(legacy.steps);
    steps[1].then.push({ kind: 'like_post' });
    const u = await send(`/agents/${legacy.id}`, { steps }, 'PATCH');
    expect(u.status).toBe(200);
    expect(u.body.steps[1].then[0].id).toBe(legacy.steps[1].then[0].id);
    expect(u.body.steps[1].then[1]).toMatchObject({ kind: 'like_post' });
  });

  it('preview_agent renders every step for a lead, keeping connectionNote and messages for the main path', async () => {
    const created = (await send('/agents', { name: 'Preview', accountId: 'acc_ada', steps: sequence })).body;
    const p = await server.rest(`/agents/${created.id}/preview?leadId=lead_ada1`);
    expect(p.status).toBe(200);
    expect(p.body.connectionNote).toMatch(/^Hi /);
    expect(p.body.messages).toHaveLength(1);
    expect(p.body.steps.map((s: { path: string }) => s.path)).toEqual([
      'steps[0]',
      'steps[1]',
      'steps[2]',
      'steps[2].then[0]',
      'steps[2].then[1]',
      'steps[2].else[0]',
      'steps[2].else[1]',
    ]);
    const invite = p.body.steps[1];
    expect(invite).toMatchObject({ stepId: created.steps[1].id, kind: 'invite' });
    expect(invite.variants.map((v: { variant: string }) => v.variant)).toEqual(['A', 'B']);
    expect(invite.variants[1].text).toMatch(/^Hello /);
    expect(invite.variants[0].text).not.toContain('{{');
    const inmail = p.body.steps[6];
    expect(inmail.subject).not.toContain('{{');
    expect(p.body.steps[0]).toEqual({ stepId: created.steps[0].id, kind: 'visit', path: 'steps[0]' });
    expect((await callTool(mcp, 'preview_agent', { agentId: created.id, leadId: 'lead_ada1' })).body).toEqual(p.body);
  });

  it('preview_agent shows each email variant under its own subject, as the lead drawn it receives it', async () => {
    const steps = [
      {
        kind: 'email',
        subject: 'Hello {{firstName}}',
        text: 'Body A for {{firstName}}.',
        variants: [{ text: 'Body B.', subject: 'B for {{firstName}}' }, { text: 'Body C.' }],
      },
    ];
    const created = (await send('/agents', { name: 'Mail preview', accountId: 'acc_ada', steps })).body;
    const p = await server.rest(`/agents/${created.id}/preview?leadId=lead_ada1`);
    expect(p.status).toBe(200);
    const [email] = p.body.steps;
    expect(email.subject).toBe(`Hello ${email.variants[0].subject.slice('Hello '.length)}`);
    expect(email.variants.map((v: { variant: string; subject: string }) => [v.variant, v.subject])).toEqual([
      ['A', email.subject],
      ['B', `B for ${email.subject.slice('Hello '.length)}`],
      // A variant without a subject of its own takes the step's.
      ['C', email.subject],
    ]);
    expect(email.variants[1].text).toBe('Body B.');
    expect((await callTool(mcp, 'preview_agent', { agentId: created.id, leadId: 'lead_ada1' })).body).toEqual(p.body);
  });

  it('a sequence written from the create_agent description alone is accepted as is', async () => {
    const { tools } = await mcp.listTools();
    const create = tools.find((t) => t.name === 'create_agent')!;
    const description = (create.inputSchema.properties as Record<string, { description: string }>).steps!.description;
    const example = JSON.parse(description.slice(description.indexOf('Example: ') + 'Example: '.length));
    const r = await callTool(mcp, 'create_agent', { name: 'From the description', accountId: 'acc_ada', steps: example });
    expect(r.isError).toBe(false);
    expect(r.body.steps[2]).toMatchObject({ kind: 'if', condition: 'accepted' });
    // The listing describes every kind and the fields each takes.
    const step = (create.inputSchema as unknown as { $defs: { Step: { description: string; properties: { kind: { enum: string[] } } } } }).$defs.Step;
    expect(step.properties.kind.enum).toEqual(['visit', 'like_post', 'invite', 'message', 'inmail', 'withdraw', 'endorse', 'email', 'wait', 'if']);
    for (const kind of step.properties.kind.enum) expect(step.description).toMatch(new RegExp(`\\b${kind}\\b`));
  });
});
