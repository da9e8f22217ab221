import { z } from 'zod';
import type { Ctx } from '../../src/core/context.js';
import type { RateClass } from '../../src/core/ratelimit/config.js';
import { defineTool, type Tool } from '../../src/tools/define.js';
import { authenticate, invokeTool } from '../../src/tools/pipeline.js';
import { TEST_KEY } from '../helpers.js';

/**
 * A tool that only counts its runs, with a chosen rate class: it shows what the pipeline lets
 * through, and that a refused call never reaches the handler.
 */
export function probeTool(rateClass?: RateClass, name = `probe_${rateClass ?? 'global'}`): Tool & { runs: () => number } {
  let runs = 0;
  const tool = defineTool({
    name,
    title: 'Probe',
    description: 'Counts its runs; used by the rate-limit tests only.',
    input: z.strictObject({ n: z.number().int().optional() }),
    output: z.object({ runs: z.number() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    http: { method: 'POST', path: `/probe/${name}` },
    ...(rateClass ? { rateLimit: rateClass } : {}),
    handler: () => ({ runs: ++runs }),
  });
  return Object.assign(tool, { runs: () => runs });
}

/** A call as a transport makes it: authenticate, then the pipeline. */
export const call = async (ctx: Ctx, tool: Tool, input: unknown = {}, apiKey: string = TEST_KEY) => {
  const auth = authenticate(ctx, { apiKey }, { requestId: 'req_test' });
  return auth.ok ? invokeTool(ctx, tool, { caller: auth.caller, input }) : auth;
};

/**
 * A RateLimit or RateLimit-Policy field (`"global";r=119;t=1, "leads_add";r=59;t=1`) as
 * `{ global: { r: 119, t: 1 }, leads_add: {...} }`. Strict about the syntax it accepts, so a
 * malformed field fails the test.
 */
export function parseLimitField(field: string | null | undefined): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const item of (field ?? '').split(', ')) {
    const m = /^"([a-z_]+)"((?:;[a-z]+=\d+)+)$/.exec(item);
    if (!m) throw new Error(`not a rate-limit list item: ${JSON.stringify(item)} in ${JSON.stringify(field)}`);
    out[m[1]!] = Object.fromEntries(
      m[2]!
        .slice(1)
        .split(';')
        .map((kv) => [kv.split('=')[0]!, Number(kv.split('=')[1])]),
    );
  }
  return out;
}
