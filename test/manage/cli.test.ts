import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { fixture } from '../helpers.js';

const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, OUTREACH_DB: '', OUTREACH_ENV: '' }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every row of every table, to prove a refused command wrote nothing. */
function dump(db: string): string {
  const conn = new Database(db, { readonly: true });
  try {
    const names = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    return JSON.stringify(names.map(({ name }) => [name, conn.prepare(`SELECT * FROM "${name}"`).all()]));
  } finally {
    conn.close();
  }
}

function expectRefused(dir: { db: string }, args: string[], mention: string) {
  const before = dump(dir.db);
  const r = run([...args, '--db', dir.db]);
  expect(r.status, r.stderr).not.toBe(0);
  expect(r.stderr).toContain(mention);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(dump(dir.db)).toBe(before);
}

describe('the operator CLI on a scratch database', () => {
  let d: { dir: string; db: string };
  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), 'outreach-manage-cli-'));
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(fixture()));
    d = { dir, db: join(dir, 'o.db') };
    expect(run(['seed', '--file', file, '--db', d.db]).status).toBe(0);
  });

  // Each case spawns the CLI a dozen times or more; on a loaded machine that takes a while.
  const SLOW = 240_000;

  it(
    'campaigns, agents and accounts: create, update, list, preview',
    () => {
      const acc = run(['accounts', 'connect', '--name', 'Second', '--message-limit', '40', '--db', d.db]);
      expect(acc.status, acc.stderr).toBe(0);
      const accountId = /account (\S+) /.exec(acc.stdout)![1]!;
      // A connected account warms up: the configured limits, and the first day's lower ones.
      expect(acc.stdout).toBe(
        `Added account ${accountId} (Second), connected: 25 invitations and 40 messages a day; warming up, day 1 of 14: 5 invitations and 10 messages today.\n`,
      );
      expect(run(['accounts', 'update', accountId, '--active', 'false', '--connection-limit', '6', '--db', d.db]).stdout).toBe(
        `Updated account ${accountId} (Second): 6 invitations and 40 messages a day, inactive (sends nothing); warming up, day 1 of 14: 5 invitations and 10 messages today.\n`,
      );
      const accounts = JSON.parse(run(['accounts', 'list', '--json', '--db', d.db]).stdout).accounts;
      expect(accounts.find((a: any) => a.id === accountId)).toMatchObject({
        active: false,
        today: { connectionRequestLimit: 5, messageLimit: 10 },
        limits: { connectionRequestLimit: 6, messageLimit: 40 },
        warmUp: { day: 1, days: 14 },
      });
      // The table shows today's limit "of" the configured one only where they differ, and the warm-up's day.
      const rows = run(['accounts', 'list', '--db', d.db]).stdout.split('\n');
      expect(rows[0]!.split(/\s{2,}/)).toEqual(['ID', 'NAME', 'STATUS', 'ACTIVE', 'INVITES TODAY', 'MESSAGES TODAY', 'WARM-UP']);
      expect(rows.find((r) => r.startsWith(accountId))!.split(/\s{2,}/)).toEqual([
        accountId,
        'Second',
        'connected',
        'no',
        '0/5 of 6',
        '0/10 of 40',
        'day 1 of 14',
      ]);
      expect(
        rows
          .find((r) => r.startsWith('acc_ada '))!
          .split(/\s{2,}/)
          .slice(4),
      ).toEqual(['3/25', '2/50', '-']);
      expect(run(['accounts', 'update', accountId, '--warm-up', 'false', '--db', d.db]).stdout).toBe(
        `Updated account ${accountId} (Second): 6 invitations and 40 messages a day, inactive (sends nothing).\n`,
      );
      // Off for one account by flag, or for every new one by the config.
      expect(run(['accounts', 'connect', '--name', 'Old hand', '--warm-up', 'false', '--db', d.db]).stdout).toMatch(
        /\(Old hand\), connected: 25 invitations and 50 messages a day\.\n$/,
      );
      const config = join(d.dir, 'config.json');
      writeFileSync(config, JSON.stringify({ engine: { warmUp: { onConnect: false } } }));
      expect(run(['accounts', 'connect', '--name', 'Config off', '--config', config, '--db', d.db]).stdout).toMatch(
        /\(Config off\), connected: 25 invitations and 50 messages a day\.\n$/,
      );

      const file = join(d.dir, 'agent.json');
      writeFileSync(
        file,
        JSON.stringify({
          name: 'CLI agent',
          accountId,
          connectionNote: 'Hi {{firstName|there}}',
          messages: [{ text: 'Hello {{ firstName }}', delayHours: 2 }],
        }),
      );
      const agent = run(['agents', 'create', '--file', file, '--db', d.db]);
      expect(agent.status, agent.stderr).toBe(0);
      const agentId = /agent (tpl_\S+) /.exec(agent.stdout)![1]!;
      const preview = JSON.parse(run(['agents', 'preview', agentId, '--lead', 'lead_ada1', '--json', '--db', d.db]).stdout);
      expect(preview.agentId).toBe(agentId);
      expect(preview.messages).toHaveLength(1);
      writeFileSync(file, JSON.stringify({ name: 'Renamed agent' }));
      expect(run(['agents', 'update', agentId, '--file', file, '--db', d.db]).stdout).toContain('Renamed agent');

      const created = run(['campaigns', 'create', '--name', 'From CLI', '--agent', agentId, '--db', d.db]);
      expect(created.status, created.stderr).toBe(0);
      const campaignId = /campaign (cmp_\S+) /.exec(created.stdout)![1]!;
      expect(run(['campaigns', 'update', campaignId, '--agent', 'none', '--db', d.db]).stdout).toContain('agent none');
      const list = JSON.parse(run(['campaigns', 'list', '--json', '--db', d.db]).stdout).campaigns;
      expect(list[0]).toMatchObject({ id: campaignId, name: 'From CLI', assignedTemplateId: null, status: 'READY_TO_SEND' });
    },
    SLOW,
  );

  it(
    'import and exclusions',
    () => {
      const csv = join(d.dir, 'leads.csv');
      writeFileSync(csv, 'Full name;Profile URL;Shoe size\n"Doe; Jane";https://linkedin.com/in/jane-doe;42\nJohn;https://linkedin.com/in/john-roe;41\n');
      const dry = JSON.parse(run(['import', '--campaign', 'cmp_q4', '--file', csv, '--dry-run', '--json', '--db', d.db]).stdout);
      expect(dry).toMatchObject({ creditsNeeded: 2, creditsCharged: 0, unmappedColumns: ['Shoe size'], summary: { created: 2 } });
      const imports = () => {
        const conn = new Database(d.db, { readonly: true });
        try {
          return conn.prepare("SELECT targets, summary FROM audit_events WHERE action = 'import' ORDER BY seq").all();
        } finally {
          conn.close();
        }
      };
      expect(imports()).toEqual([]);
      const r = run(['import', '--campaign', 'cmp_q4', '--file', csv, '--db', d.db]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('2 created');
      expect(r.stderr).not.toContain('\n    at ');
      // The import is in the audit trail once (as the owner's, as every CLI write is), naming the campaign.
      expect(imports()).toEqual([{ targets: '["cmp_q4"]', summary: 'Import leads from leads.csv' }]);
      expect(JSON.parse(run(['import', '--campaign', 'cmp_q4', '--file', csv, '--json', '--db', d.db]).stdout)).toMatchObject({
        creditsCharged: 0,
        summary: { duplicate: 2 },
      });

      expect(run(['exclusions', 'add', 'https://linkedin.com/in/jane-doe/', '--db', d.db]).stdout).toContain('1 lead(s) newly excluded');
      const list = JSON.parse(run(['exclusions', 'list', '--json', '--db', d.db]).stdout).exclusions;
      expect(list.map((e: any) => e.networkUrl)).toContain('https://www.linkedin.com/in/jane-doe');
      const file = join(d.dir, 'ex.txt');
      writeFileSync(file, 'https://linkedin.com/in/x-one\nhttps://linkedin.com/in/x-two\n');
      expect(run(['exclusions', 'import', '--file', file, '--db', d.db]).stdout).toContain('Excluded 2 new');
      expect(run(['exclusions', 'remove', 'https://linkedin.com/in/x-one', '--db', d.db]).stdout).toContain('Removed 1');
    },
    SLOW,
  );

  it(
    'bad input exits non-zero with one line naming the flag or value, and writes nothing',
    () => {
      const bad = join(d.dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ name: 'x', accountId: 'acc_ada', messages: [{ text: 'Hi {{nick}}', delayHours: 1 }] }));
      expectRefused(d, ['agents', 'create', '--file', bad], 'messages[0].text');
      writeFileSync(bad, JSON.stringify({ name: 'x', accountId: 'acc_nope' }));
      expectRefused(d, ['agents', 'create', '--file', bad], 'accountId');
      expectRefused(d, ['agents', 'create', '--file', join(d.dir, 'missing.json')], '--file');
      // An unknown field at the top of the file is named, as REST names it; so is a file that holds no object.
      writeFileSync(bad, JSON.stringify({ nme: 'x' }));
      expectRefused(d, ['agents', 'update', 'tpl_intro', '--file', bad], '--file: nme: unknown field');
      writeFileSync(bad, JSON.stringify({ name: 'x', accountId: 'acc_ada', bogus: 1 }));
      expectRefused(d, ['agents', 'create', '--file', bad], '--file: bogus: unknown field');
      writeFileSync(bad, '[1]');
      expectRefused(d, ['agents', 'create', '--file', bad], '--file: Invalid input: expected object, received array');
      expectRefused(d, ['campaigns', 'create', '--name', '  '], '--name');
      expectRefused(d, ['campaigns', 'create', '--name', 'x', '--agent', 'tpl_nope'], '--agent');
      expectRefused(d, ['campaigns', 'update', 'cmp_running', '--agent', 'none'], 'pause');
      // The commands go through the tools' pipeline: the input stage checks the id's form.
      expectRefused(d, ['campaigns', 'update', 'bad id!', '--name', 'x'], 'ID: must be a campaign id');
      expectRefused(d, ['agents', 'preview', 'tpl intro', '--lead', 'lead_ada1'], 'ID: must be an agent id');
      expectRefused(d, ['accounts', 'connect', '--name', 'x', '--connection-limit', '101'], '--connection-limit');
      expectRefused(d, ['accounts', 'update', 'acc_ada', '--active', 'maybe'], '--active');
      expectRefused(d, ['accounts', 'connect', '--name', 'x', '--warm-up', 'soon'], '--warm-up');
      const csv = join(d.dir, 'nourl.csv');
      writeFileSync(csv, 'Name,Company\nAda,Engines\n');
      expectRefused(d, ['import', '--campaign', 'cmp_q4', '--file', csv], 'networkUrl');
      expectRefused(d, ['import', '--campaign', 'cmp_q4', '--file', csv, '--map', 'Company=shoe'], '--map');
      expectRefused(d, ['import', '--campaign', 'cmp_nope', '--file', csv], 'cmp_nope');
      // A folder where a file belongs is named as such, not read.
      expectRefused(d, ['import', '--campaign', 'cmp_q4', '--file', d.dir], `--file: ${d.dir} is not a file`);
      expectRefused(d, ['agents', 'create', '--file', d.dir], `--file: ${d.dir} is not a file`);
      expectRefused(d, ['exclusions', 'import', '--file', d.dir], `--file: ${d.dir} is not a file`);
      // A mail server refusing the login is the command's one line, with no log record after it.
      expectRefused(d, ['mailboxes', 'add', '--name', 'X', '--address', 'sim-login-fails@example.com', '--sim'], 'login');
      expectRefused(d, ['exclusions', 'add', 'https://www.linkedin.com/company/acme'], 'URL');
      expectRefused(d, ['campaigns', 'frobnicate'], 'frobnicate');
    },
    SLOW,
  );

  it(
    "refusals speak the CLI's words: flags and commands, never the API's fields or tools",
    () => {
      const refusal = (args: string[], expected: string) => {
        expectRefused(d, args, expected);
        const { stderr } = run([...args, '--db', d.db]);
        expect(stderr).not.toMatch(/list_\w+|GET \/|assignedTemplateId|senderAccountIds|connectionRequestLimit|connect_account|Unknown option/);
      };
      refusal(['campaigns', 'update', 'cmp_q4'], 'outreach: give at least one of --name, --agent, --senders, --approval, --mailbox\n');
      refusal(
        ['accounts', 'update', 'acc_ada'],
        'outreach: give at least one of --name, --connection-limit, --message-limit, --visit-limit, --like-limit, --active, --warm-up\n',
      );
      refusal(['campaigns', 'update', 'cmp_nope', '--name', 'X'], 'Campaign cmp_nope not found. List them with: npx outreach campaigns list\n');
      refusal(
        ['campaigns', 'create', '--name', 'Z', '--senders', 'acc_zz'],
        '--senders: Account acc_zz not found. List them with: npx outreach accounts list\n',
      );
      refusal(['agents', 'preview', 'tpl_nope', '--lead', 'x'], 'Agent tpl_nope not found. List them with: npx outreach agents list\n');
      refusal(
        ['agents', 'preview', 'tpl_intro', '--lead', 'lead_nope'],
        "--lead: Lead lead_nope not found. Find the lead's id on the dashboard's Leads page\n",
      );
      const agentFile = join(d.dir, 'agent.json');
      writeFileSync(agentFile, JSON.stringify({ name: 'X', accountId: 'acc_zz', connectionNote: 'Hi' }));
      refusal(['agents', 'create', '--file', agentFile], 'List them with: npx outreach accounts list; add one with: npx outreach accounts connect\n');
      // A negative amount is the amount, checked as such, wherever the flags stand.
      refusal(['credits', 'add', '-5'], 'outreach: N: "-5" must be a whole number from 1 to 10,000,000\n');
      refusal(['credits', 'add', '--top-up', '-5'], 'outreach: N: "-5" must be a whole number from 1 to 10,000,000\n');
    },
    SLOW,
  );

  it(
    'create commands take --idempotency-key: the same command again creates nothing more',
    () => {
      const args = ['campaigns', 'create', '--name', 'Once', '--idempotency-key', 'once-1', '--db', d.db];
      const first = run(args);
      expect(first.status, first.stderr).toBe(0);
      const before = dump(d.db);
      const again = run(args);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      expect(again.stderr).toContain('--idempotency-key once-1 was used before');
      expect(dump(d.db)).toBe(before);
      expectRefused(d, ['campaigns', 'create', '--name', 'Other', '--idempotency-key', 'once-1'], '--idempotency-key: ');
      expectRefused(d, ['accounts', 'connect', '--name', 'Third', '--idempotency-key', ''], '--idempotency-key: ');
    },
    SLOW,
  );

  it(
    '--help on every command and subcommand',
    () => {
      const usage = readFileSync(new URL('../../src/cli/manage.ts', import.meta.url), 'utf8');
      expect(usage).toContain('MANAGE_USAGE');
      for (const args of [
        ['campaigns'],
        ['campaigns', 'list'],
        ['campaigns', 'create'],
        ['campaigns', 'update'],
        ['agents'],
        ['agents', 'list'],
        ['agents', 'create'],
        ['agents', 'update'],
        ['agents', 'preview'],
        ['accounts'],
        ['accounts', 'list'],
        ['accounts', 'connect'],
        ['accounts', 'update'],
        ['import'],
        ['exclusions'],
        ['exclusions', 'list'],
        ['exclusions', 'add'],
        ['exclusions', 'remove'],
        ['exclusions', 'import'],
      ]) {
        const r = run([...args, '--help']);
        expect(r.status, args.join(' ')).toBe(0);
        expect(r.stdout).toContain(`npx outreach ${args.join(' ')}`);
      }
    },
    SLOW,
  );
});
