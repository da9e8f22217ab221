import { z } from 'zod';
import { PATH_ID } from '../core/ids.js';
import { Cursor } from '../core/pagination.js';

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
  if (zodSchema === Cursor) {
    delete node.minLength;
    delete node.maxLength;
  }
};

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

/** The listed arguments: every property, type, enum, default, bound and description a model writes by. */
export function mcpInputSchema(schema: z.ZodObject): JsonObject {
  return dropBranchDescriptions(jsonSchema(schema, 'input', dropCopiedValueSyntax)) as JsonObject;
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
const SHAPE_KEYWORDS = new Set(['type', 'properties', 'required', 'items', 'prefixItems', 'additionalProperties', 'propertyNames', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'format', '$ref', '$defs']);

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
  return factorRepeats(shapeOnly(jsonSchema(schema, 'output')));
}
