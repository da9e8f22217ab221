import type { PromptSpec } from './define.js';
import { personalizeDraftsPrompt } from './personalize-drafts.js';
import { startOutreachPrompt } from './start-outreach.js';

/** Every MCP prompt, in listing order. */
export const PROMPTS: readonly PromptSpec[] = [startOutreachPrompt as PromptSpec, personalizeDraftsPrompt as PromptSpec];
