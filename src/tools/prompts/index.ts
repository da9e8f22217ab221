import type { PromptSpec } from './define.js';
import { personalizeDraftsPrompt } from './personalize-drafts.js';

/** Every MCP prompt, in listing order. */
export const PROMPTS: readonly PromptSpec[] = [personalizeDraftsPrompt as PromptSpec];
