import type { z } from 'zod';

type Scalar = 'number' | 'boolean' | 'other';

/** What scalar a (possibly optional/defaulted/described) zod field holds. */
function scalarKind(schema: z.ZodType): Scalar {
  // `def` is zod 4's public view of a schema's definition.
  const def = schema.def as { type: string; innerType?: z.ZodType; values?: unknown[]; options?: z.ZodType[] };
  switch (def.type) {
    case 'number':
    case 'int':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'literal':
      return def.values?.every((v) => typeof v === 'boolean') ? 'boolean' : 'other';
    case 'optional':
    case 'default':
    case 'nullable':
    case 'prefault':
      return def.innerType ? scalarKind(def.innerType) : 'other';
    default:
      return 'other';
  }
}

/**
 * Parses query-string values into the JSON types the tool input declares (self-hosting.md,
 * Tool arguments): `limit=5` becomes 5 and `replied=true` becomes true. Anything that does
 * not parse stays a string, so validation names the field.
 */
export function coerceQuery(shape: Record<string, z.ZodType>, query: Record<string, unknown>): Record<string, unknown> {
  // Names come from the client: `constructor` or `__proto__` must be plain unknown fields,
  // not what every object inherits (a prototype lookup, or `__proto__`'s setter eating the value).
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, value] of Object.entries(query)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (typeof value !== 'string' || !field) {
      out[key] = value;
      continue;
    }
    const kind = scalarKind(field);
    if (kind === 'number' && /^-?\d+(\.\d+)?$/.test(value)) out[key] = Number(value);
    else if (kind === 'boolean' && (value === 'true' || value === 'false')) out[key] = value === 'true';
    else out[key] = value;
  }
  return out;
}
