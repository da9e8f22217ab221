import type { z } from 'zod';
import type { Ctx } from '../../core/context.js';

/**
 * An MCP prompt: a conversation opener the user picks in the client (a slash command), which
 * hands the assistant a plan written against this server's tools. src/mcp lists and answers
 * every prompt in PROMPTS (./index.ts).
 */
export interface PromptSpec<A extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The arguments the user fills in, checked before `text` runs; MCP passes each as a string. */
  args: A;
  /**
   * The tools the plan calls. When a connection does not offer some of them, the answer says
   * which, and how the user adds them, rather than sending the assistant after tools it lacks.
   */
  uses: readonly string[];
  /** How the user adds the tools in `uses` to a connection that lacks them. */
  toolset: string;
  /**
   * What an argument names, for argument completion, where its name alone does not say it
   * (`campaignId`, `agentId` and `accountId` name a campaign, an agent and an account).
   */
  names?: Partial<Record<keyof z.input<A> & string, NamedThing>>;
  /** The plan: one user message of text. */
  text(ctx: Ctx, args: z.output<A>): string;
}

/** What an argument can name: a campaign, one with drafts waiting for a person, an agent, an account. */
export type NamedThing = 'campaign' | 'campaign_with_pending_drafts' | 'agent' | 'account';

export const definePrompt = <A extends z.ZodObject>(spec: PromptSpec<A>): PromptSpec<A> => spec;
