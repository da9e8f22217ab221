import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../events.js';
import { WEBHOOK_EVENT_SCHEMAS } from './payloads.js';

/** Where the published schemas live, relative to the repository root. */
export const WEBHOOK_SCHEMA_DIR = 'docs/webhook-schemas';

/**
 * The published JSON Schema of one payload. Two departures from a literal translation, both
 * for receivers: objects allow unknown properties, because adding a field is a non-breaking
 * change (spec, Versioning) that must not fail a validating receiver; and timestamps say
 * `format: date-time` without zod's long regex.
 */
export function webhookJsonSchema(type: (typeof WEBHOOK_EVENT_TYPES)[number]): Record<string, unknown> {
  return z.toJSONSchema(WEBHOOK_EVENT_SCHEMAS[type], {
    target: 'draft-2020-12',
    io: 'output',
    override: ({ jsonSchema }) => {
      if (jsonSchema.type === 'object') delete jsonSchema.additionalProperties;
      if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
    },
  });
}

/** File name → file text, for every event type: what `npm run docs:webhooks` writes. */
export function webhookSchemaFiles(): Map<string, string> {
  return new Map(WEBHOOK_EVENT_TYPES.map((type) => [`${type}.json`, `${JSON.stringify(webhookJsonSchema(type), null, 2)}\n`]));
}
