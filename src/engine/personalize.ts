import { placeholderValues, renderTemplate } from '../core/agents/render.js';
import type { leads } from '../db/schema.js';

type LeadRow = typeof leads.$inferSelect;

/** The greeting name for the engine's own texts (polite close, agent replies) when the lead has none. */
const NO_FIRST_NAME = 'there';

/** Lower-case placeholder values for the engine's own texts; the greeting name never empty. */
export function placeholders(lead: LeadRow): Record<string, string> {
  const values = placeholderValues(lead);
  return {
    ...Object.fromEntries(Object.entries(values).map(([k, v]) => [k.toLowerCase(), v ?? ''])),
    firstname: values.firstName ?? NO_FIRST_NAME,
  };
}

/**
 * Fills an agent's note or message for a lead: the one renderer of `core/agents/render.ts`,
 * the same that preview_agent shows.
 */
export const personalize = (template: string, lead: LeadRow): string => renderTemplate(template, lead);

export { fitTo } from '../core/agents/render.js';
