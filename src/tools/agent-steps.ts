// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { AgentStep, CONDITIONS, STEP_KINDS, StepInput, StepsUpdate, VARIANTS_MAX, WAIT_HOURS_MAX, WITHIN_HOURS_MAX } from '../core/agents/steps.js';
import { ACTION_KINDS } from '../core/steps/registry.js';
import { LEAD_TAGS } from '../core/leads/enums.js';

/** A JSON Schema node (as schemas.ts has it; not imported from there, which imports this). */
type JsonObject = { [key: string]: unknown };

/*
 * How tools/list shows a step. The server validates each kind with its own strict shape (and
 * names the offending path); the listing shows one object whose `kind` decides which fields
 * apply, which says the same to a model in a quarter of the bytes. OpenAPI keeps the full,
 * per-kind shapes.
 */

const steps = { type: 'array', items: { $ref: '#/$defs/Step' } };

/** The kinds that reach the network and have no field of their own (visit, like_post, withdraw), listed together. */
const FIELDLESS = ACTION_KINDS.filter((k) => Object.keys(k.listing.fields ?? {}).length === 0 && !('variants' in k && k.variants));

/** The fields of the kinds that reach the network, each once, as their modules list them (src/core/steps/). */
function kindFields(as: 'input' | 'output'): JsonObject {
  const out: JsonObject = {};
  for (const k of ACTION_KINDS) for (const [name, field] of Object.entries(k.listing.fields ?? {})) out[name] ??= field[as];
  return out;
}

/** The listed input shape of one step. */
export const STEP_LISTING: JsonObject = {
  type: 'object',
  description:
    `kind decides the fields. ${FIELDLESS.map((k) => k.listing.says).join(', ')}: none. ` +
    `${ACTION_KINDS.filter((k) => !FIELDLESS.includes(k))
      .map((k) => k.listing.says)
      .join(' ')} ` +
    'wait: hours. if: condition, withinHours, then (taken as soon as the condition holds), else (taken when the time runs out).',
  properties: {
    // update_agent's steps say when to send an id back; a new step has none.
    id: { type: 'string' },
    kind: { enum: [...STEP_KINDS] },
    ...kindFields('input'),
    variants: {
      type: 'array',
      minItems: 1,
      maxItems: VARIANTS_MAX,
      items: { type: 'object' },
      description: 'A/B test: alternatives B, C…: [{note}] on an invite, [{text}] on a message, [{text, subject?}] on an email.',
    },
    hours: { type: 'integer', minimum: 1, maximum: WAIT_HOURS_MAX },
    condition: {
      enum: [...CONDITIONS],
      description: 'if: accepted (the invitation), replied (either channel), email_replied, email_bounced, or tagged (with tags).',
    },
    tags: { type: 'array', minItems: 1, items: { enum: [...LEAD_TAGS] }, description: 'if tagged: the lead tags any of which takes then.' },
    withinHours: { type: 'integer', minimum: 1, maximum: WITHIN_HOURS_MAX, description: 'Hours to wait for the condition.' },
    then: steps,
    else: steps,
  },
  required: ['kind'],
};

/** The listed output shape of a stored step: every step has its id; the rest as in STEP_LISTING. */
const outSteps = { type: 'array', items: { $ref: '#/$defs/AgentStep' } };
export const AGENT_STEP_LISTING: JsonObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    kind: { enum: [...STEP_KINDS] },
    ...kindFields('output'),
    variants: { type: 'array', items: { type: 'object' } },
    hours: { type: 'integer' },
    condition: { enum: [...CONDITIONS] },
    tags: { type: 'array', items: { enum: [...LEAD_TAGS] } },
    withinHours: { type: 'integer' },
    then: outSteps,
    else: outSteps,
  },
  required: ['id', 'kind'],
};

/**
 * update_agent's steps: the shape is create_agent's, which a client with the manage toolset
 * lists beside it, so it is not repeated in full.
 */
const STEPS_UPDATE_LISTING: JsonObject = {
  type: 'array',
  minItems: 1,
  items: { type: 'object', properties: { id: { type: 'string' }, kind: { enum: [...STEP_KINDS] } }, required: ['kind'] },
  description: StepsUpdate.description ?? '',
};

/** The schemas tools/list shows in a compact form of their own. */
export const LISTED_AS: ReadonlyMap<unknown, JsonObject> = new Map<unknown, JsonObject>([
  [StepInput, STEP_LISTING],
  [AgentStep, AGENT_STEP_LISTING],
  [StepsUpdate, STEPS_UPDATE_LISTING],
]);
