import { cliCommand, resolveSettings, shellWord, UsageError } from '../config.js';
import { getCredits, type Credits } from '../core/credits/get.js';
import { MAX_GRANT, type Balance, type GrantCreditsResult } from '../core/credits/grant.js';
import { grantCreditsTool } from '../tools/operator/credits.js';
import { getWorkspace } from '../core/workspace/get.js';
import { asUsageError, IDEMPOTENCY_FLAG, IDEMPOTENCY_NAME, operate, parse, stdout, withDb, withDbAsync, type Options } from './shared.js';

export const CREDITS_USAGE = `  credits [--json] [--db PATH]
                        Print the plan and the four credit balances.
  credits add N [--lookalike] [--top-up] [--idempotency-key K] [--json] [--db PATH]
                        Grant N credits (1 to 10,000,000) and print the new balances: to the normal
                        credits, or with --top-up the top-up credits, --lookalike the Lookalike
                        allowance, both the Lookalike top-up. Each grant is a ledger entry; with
                        --idempotency-key, the same command again within 24 h grants nothing more.`;

const FLAGS = { db: { type: 'string' }, json: { type: 'boolean' } } satisfies Options;

const BALANCE_NAMES: Record<Balance, string> = {
  credits: 'credits',
  topUpCredits: 'top-up credits',
  lookalikeCredits: 'Lookalike credits',
  lookalikeTopUpCredits: 'Lookalike top-up credits',
};

const n = (v: number): string => v.toLocaleString('en-US');

function balances(c: Credits, plan: string): string {
  const rows: [string, number, string][] = [
    ['Credits', c.credits, '1 per lead added, spent first'],
    ['Top-up credits', c.topUpCredits, 'spent after credits'],
    ['Lookalike credits', c.lookalikeCredits, '1 per Lookalike lead found'],
    ['Lookalike top-up', c.lookalikeTopUpCredits, 'spent after Lookalike credits'],
  ];
  const width = Math.max(...rows.map(([, v]) => n(v).length));
  return [`Plan: ${plan}`, ...rows.map(([label, v, note]) => `  ${`${label}:`.padEnd(19)} ${n(v).padStart(width)}  (${note})`)].join('\n');
}

/** N of `credits add N`: a whole number in range, written with digits only. */
function amount(raw: string | undefined): number {
  if (raw === undefined) throw new UsageError(`credits add: N is required, the credits to grant (1 to ${n(MAX_GRANT)})`);
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > MAX_GRANT) throw new UsageError(`N: "${raw}" must be a whole number from 1 to ${n(MAX_GRANT)}`);
  return value;
}

/** How to grant credits to this database, as a user can paste it. */
export const creditsAddCommand = (dbPath: string, example = 1000): string => `${cliCommand()} credits add ${example} --db ${shellWord(dbPath)}`;

export async function credits(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== undefined && !sub.startsWith('-') && sub !== 'add') {
    throw new UsageError(`credits: unknown subcommand "${sub}" (add, or none to print the balances)`);
  }
  if (sub === 'add') {
    const { values, positionals } = parse(rest, { ...FLAGS, ...IDEMPOTENCY_FLAG, lookalike: { type: 'boolean' }, 'top-up': { type: 'boolean' } }, 1);
    const granted = amount(positionals[0]);
    return withDbAsync(
      values.db,
      async (ctx) => {
        const ws = getWorkspace(ctx);
        if (!ws) throw noWorkspace(values.db);
        // The dashboard's grant_credits tool, through the pipeline: its validation, and with
        // --idempotency-key a repeated command grants once.
        let r: GrantCreditsResult;
        try {
          const input = { amount: granted, lookalike: values.lookalike ?? false, topUp: values['top-up'] ?? false };
          r = await operate<GrantCreditsResult>(ctx, grantCreditsTool, input, values['idempotency-key']);
        } catch (err) {
          throw asUsageError(err, { amount: 'N', ...IDEMPOTENCY_NAME });
        }
        if (values.json) return stdout(JSON.stringify(r, null, 2));
        stdout(`Granted ${n(r.granted)} ${BALANCE_NAMES[r.balance]}. Balances now:\n${balances(r.credits, planText(ws))}`);
      },
      { mustExist: true },
    );
  }
  const { values } = parse(args, FLAGS);
  withDb(
    values.db,
    (ctx) => {
      const ws = getWorkspace(ctx);
      if (!ws) throw noWorkspace(values.db);
      const c = getCredits(ctx, ws);
      if (values.json) return stdout(JSON.stringify(c, null, 2));
      stdout(balances(c, planText(ws)));
      if (c.credits + c.topUpCredits === 0)
        stdout(`\nNo credits to add leads with. Grant some: ${creditsAddCommand(resolveSettings({ db: values.db }).dbPath)}`);
    },
    { mustExist: true },
  );
}

const planText = (ws: { planId: string; plan: string; planActive: boolean }): string => `${ws.planId} (${ws.plan}${ws.planActive ? '' : ', inactive'})`;

const noWorkspace = (db: string | undefined) =>
  new UsageError(`--db: ${resolveSettings({ db }).dbPath} has no workspace yet; create one with outreach keys create --env test (or outreach start)`);
