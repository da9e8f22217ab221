import { countTokens } from 'gpt-tokenizer';

/**
 * The listing budget (issue 27): what a model reads of tools/list, in tokens, at most 4,500 for
 * the default listing and 9,000 with the manage toolset (7,000 until the batch tools named their
 * items' fields, issue 34; 7,300 until the mailbox tools the email channel puts in manage and the
 * endorse step came, 8,814 with them). Shared by the bench's targets and
 * test/mcp/listing.test.ts, so both count the same text with the same tokenizer.
 */
export const LISTING_BUDGET_TOKENS = { default: 4_500, manage: 9_000 } as const;

/**
 * What a model reads of a tools/list answer, as the JSON text a client puts in its context:
 * each tool's name, title, description, input schema and annotations. Output schemas are for
 * clients to validate results, not for the model, so they are left out.
 */
export const modelVisible = (tools: readonly Record<string, unknown>[]): string =>
  JSON.stringify(tools.map(({ name, title, description, inputSchema, annotations }) => ({ name, title, description, inputSchema, annotations })));

/**
 * Its tokens, counted with a real BPE tokenizer (gpt-tokenizer's o200k_base, the encoding of
 * current OpenAI models; Anthropic publishes none), not bytes ÷ 4.
 */
export const listingTokens = (tools: readonly Record<string, unknown>[]): number => countTokens(modelVisible(tools));
