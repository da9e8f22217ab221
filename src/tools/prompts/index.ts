import type { PromptSpec } from './define.js';
import { personalizeDraftsPrompt } from './personalize-drafts.js';
import { startOutreachPrompt } from './start-outreach.js';
import { triageRepliesPrompt } from './triage-replies.js';

/** Every MCP prompt, in listing order. */
export const PROMPTS: readonly PromptSpec[] = [startOutreachPrompt as PromptSpec, personalizeDraftsPrompt as PromptSpec, triageRepliesPrompt as PromptSpec];
