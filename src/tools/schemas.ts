import { z } from 'zod';
import { PATH_ID } from '../core/ids.js';
import { Cursor } from '../core/pagination.js';
import { LISTED_AS } from './agent-steps.js';
import { IdempotencyKey } from './define.js';
import { WEEKDAYS } from '../core/safety/hours.js';
import { AccountHoursInput } from '../core/safety/rules.js';

export type JsonObject = { [key: string]: unknown };

type Override = NonNullable<z.core.ToJSONSchemaParams['override']>;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Drops the ±2^53 bounds zod puts on every integer: noise in every client's context. */
function dropSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropSafeIntegerBounds);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = dropSafeIntegerBounds(v);
  }
  return out;
}

/** A zod schema as JSON Schema (draft 2020-12, what MCP and OpenAPI 3.1 both take). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output', override?: Override): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', override }) as JsonObject;
  return dropSafeIntegerBounds(rest) as JsonObject;
}

/*
 * tools/list sits in every MCP client's context, so its schemas say less than the OpenAPI
 * document, which keeps the full detail (docs/decisions.md, "OpenAPI, tool listings and generated docs").
 */

/**
 * Ids and cursors are copied from earlier results, never composed by a model: their syntax
 * (the path-id pattern, a cursor's length) is the server's to check, and a bad one comes
 * back as a validation_error naming the field.
 */
const dropCopiedValueSyntax: Override = ({ zodSchema, jsonSchema: node }) => {
  if (node.pattern === PATH_ID.source) delete node.pattern;
  // An empty idempotency key is refused by name; no model writes one.
  if (zodSchema === IdempotencyKey) delete node.minLength;
  if (zodSchema === Cursor) {
    delete node.minLength;
    delete node.maxLength;
  }
  listCompactly({ zodSchema, jsonSchema: node });
};

/**
 * An account's working hours, listed by shape: the argument's description spells the form
 * ("HH:MM" times, weekday names), which the server checks, naming the field it refuses.
 */
const HOURS_LISTING: JsonObject = {
  anyOf: [
    { const: 'always' },
    {
      type: 'object',
      properties: { start: { type: 'string' }, end: { type: 'string' }, days: { type: 'array', items: { enum: [...WEEKDAYS] } } },
      required: ['start', 'end'],
    },
  ],
};

/** A schema with a compact listing of its own (a sequence step: see agent-steps.ts) is listed as that. */
function listCompactly({ zodSchema, jsonSchema: node }: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  const compact = zodSchema === AccountHoursInput ? HOURS_LISTING : LISTED_AS.get(zodSchema);
  if (!compact) return;
  for (const key of Object.keys(node)) delete node[key];
  Object.assign(node, structuredClone(compact));
}

/**
 * A field like `campaignId: CampaignId.nullish().describe(...)` carries its own description
 * and, inside the non-null branch, the shared one of CampaignId: the reader needs only the first.
 */
function dropBranchDescriptions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropBranchDescriptions);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = dropBranchDescriptions(v);
  if (typeof out.description === 'string' && Array.isArray(out.anyOf)) {
    out.anyOf = out.anyOf.map((branch: unknown) => {
      if (!isObject(branch)) return branch;
      const { description: _inner, ...rest } = branch;
      return rest;
    });
  }
  return out;
}

/** Keywords that describe a value whatever its type: they stay outside the nullable's branches. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

/**
 * `{ type: [X, "null"] }` as `{ anyOf: [{ type: X }, { type: "null" }] }`, the spelling the MCP
 * Inspector's --strict run accepts: a type array is legal JSON Schema, but clients that map tool
 * schemas onto a single-`type` dialect (Gemini's function declarations) reject or mangle it.
 * The type's own keywords (bounds, enum, format) go into its branch; annotations stay outside.
 */
export function splitNullableTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(splitNullableTypes);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = splitNullableTypes(v);
  const type = out.type;
  if (!Array.isArray(type) || !type.every((t) => typeof t === 'string') || type.length < 2) return out;
  const outer: JsonObject = {};
  const inner: JsonObject = {};
  for (const [k, v] of Object.entries(out)) {
    if (k === 'type') continue;
    if (ANNOTATIONS.has(k)) outer[k] = v;
    else inner[k] = k === 'enum' && Array.isArray(v) ? v.filter((e) => e !== null) : v;
  }
  const branches = (type as string[]).map((t) => (t === 'null' ? { type: 'null' } : { type: t, ...inner }));
  return { ...outer, anyOf: branches };
}

/**
 * An optional argument whose null only means "not given" (a lead's job title, a Lookalike
 * filter) is listed as its type alone: omitting it says the same, in fewer bytes a model reads.
 * An argument whose description says what null does (update_lead's tag: null clears it) keeps
 * its null branch. The server accepts null for all of them either way.
 */
function omitNullOfOptionals(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(omitNullOfOptionals);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = omitNullOfOptionals(v);
  if (!isObject(out.properties)) return out;
  const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
  const props: JsonObject = {};
  for (const [name, prop] of Object.entries(out.properties)) {
    props[name] = prop;
    if (required.has(name) || !isObject(prop) || !Array.isArray(prop.anyOf) || prop.anyOf.length !== 2) continue;
    const [value, nul] = prop.anyOf as unknown[];
    if (!isObject(value) || !isObject(nul) || nul.type !== 'null' || Object.keys(nul).length !== 1) continue;
    if (typeof prop.description === 'string' && /\bnull\b/.test(prop.description)) continue;
    const { anyOf: _nullable, ...annotations } = prop;
    props[name] = { ...annotations, ...value };
  }
  out.properties = props;
  return out;
}

/**
 * The server refuses unknown arguments by name (400 validation_error), so the listing does not
 * repeat `additionalProperties: false` on every object a model reads.
 */
function dropClosedObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropClosedObjects);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) if (!(k === 'additionalProperties' && v === false)) out[k] = dropClosedObjects(v);
  return out;
}

/** Drops the `$defs` the schema no longer reaches (a compact listing replaced their only use). */
function dropUnusedDefs(schema: JsonObject): JsonObject {
  const { $defs, ...rest } = schema;
  if (!isObject($defs)) return schema;
  const refsIn = (node: unknown): string[] => [...JSON.stringify(node).matchAll(/"#\/\$defs\/([^"]+)"/g)].map((m) => m[1] ?? '');
  const reached = new Set<string>();
  const queue = refsIn(rest);
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (reached.has(name) || !($defs as JsonObject)[name]) continue;
    reached.add(name);
    queue.push(...refsIn(($defs as JsonObject)[name]));
  }
  const kept = Object.fromEntries(Object.entries($defs).filter(([name]) => reached.has(name)));
  return Object.keys(kept).length ? { ...rest, $defs: kept } : rest;
}

/** The listed arguments: every property, type, enum, default, bound and description a model writes by. */
export function mcpInputSchema(schema: z.ZodObject): JsonObject {
  const listed = dropBranchDescriptions(jsonSchema(schema, 'input', dropCopiedValueSyntax));
  return dropUnusedDefs(dropClosedObjects(omitNullOfOptionals(splitNullableTypes(listed))) as JsonObject);
}

const SCHEMA_MAPS = new Set(['properties', '$defs']);
const SUBSCHEMA_KEYWORDS = new Set(['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', 'propertyNames']);

/**
 * Rebuilds a schema with `fn` applied to each subschema below the root, outermost first;
 * `fn` returns its argument to go on into it, or a replacement. `name` is the nearest
 * property (or def) name above the subschema.
 */
function mapSubschemas(node: JsonObject, fn: (sub: JsonObject, name: string) => JsonObject, name = ''): JsonObject {
  const visit = (sub: unknown, at: string): unknown => {
    if (!isObject(sub)) return sub;
    const replaced = fn(sub, at);
    return replaced === sub ? mapSubschemas(sub, fn, at) : replaced;
  };
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(k) && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([child, sub]) => [child, visit(sub, child)]));
    else if (SUBSCHEMA_KEYWORDS.has(k)) out[k] = Array.isArray(v) ? v.map((sub) => visit(sub, name)) : visit(v, name);
    else out[k] = v;
  }
  return out;
}

/**
 * What an output schema keeps: the shape (property names, types, which are always present,
 * value sets, timestamp format). Descriptions and bounds stay in the OpenAPI document.
 * `additionalProperties: false` is dropped too: adding a field is a non-breaking change
 * (spec, Versioning), as in the published webhook schemas.
 */
const SHAPE_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'items',
  'prefixItems',
  'additionalProperties',
  'propertyNames',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'format',
  '$ref',
  '$defs',
]);

function shapeOnly(node: JsonObject): JsonObject {
  const kept = Object.fromEntries(Object.entries(node).filter(([k, v]) => SHAPE_KEYWORDS.has(k) && !(k === 'additionalProperties' && v === false)));
  return mapSubschemas(kept, shapeOnly);
}

/** A ref costs the reader a lookup: a repeated shape is factored out only when that saves this much. */
const MIN_FACTOR_SAVING = 100;

/**
 * Moves a sub-shape that occurs more than once (the campaign summary in both top-5 lists of
 * get_insights_overview) into local `$defs`, when that makes the schema clearly shorter. A def
 * is named after the first property it describes.
 */
function factorRepeats(root: JsonObject): JsonObject {
  let schema = root;
  for (;;) {
    const seen = new Map<string, { count: number; name: string }>();
    mapSubschemas(schema, (sub, name) => {
      const text = JSON.stringify(sub);
      const entry = seen.get(text);
      if (entry) entry.count++;
      else seen.set(text, { count: 1, name });
      return sub;
    });
    const defs = isObject(schema.$defs) ? schema.$defs : {};
    let best: { text: string; name: string; saved: number } | null = null;
    for (const [text, { count, name }] of seen) {
      if (count < 2) continue;
      const base = /^[A-Za-z][A-Za-z0-9_]*$/.test(name) ? name : 'shape';
      let defName = base;
      for (let i = 2; defName in defs; i++) defName = `${base}${i}`;
      const refBytes = JSON.stringify({ $ref: `#/$defs/${defName}` }).length;
      // Each occurrence becomes a ref; the def adds `"name":` and a comma, and `"$defs":{}` once.
      const saved = count * (text.length - refBytes) - (text.length + defName.length + 4) - ('$defs' in schema ? 0 : 11);
      if (saved >= MIN_FACTOR_SAVING && (!best || saved > best.saved)) best = { text, name: defName, saved };
    }
    if (!best) return schema;
    const { text, name } = best;
    const ref = { $ref: `#/$defs/${name}` };
    const { $defs: replacedDefs, ...rest } = mapSubschemas(schema, (sub) => (JSON.stringify(sub) === text ? ref : sub));
    schema = { ...rest, $defs: { ...(isObject(replacedDefs) ? replacedDefs : {}), [name]: JSON.parse(text) as JsonObject } };
  }
}

/** The listed output: the shape the structuredContent has, with repeated sub-shapes defined once. */
export function mcpOutputSchema(schema: z.ZodType): JsonObject {
  return factorRepeats(splitNullableTypes(shapeOnly(jsonSchema(schema, 'output', (ctx) => listCompactly(ctx as never)))) as JsonObject);
}
