import type { JsonObject } from '../tools/schemas.js';
import { escapeHtml } from '../http/html.js';

/**
 * A browsable API reference rendered from the OpenAPI document itself: plain HTML, no
 * scripts and no external assets, so it works offline and reads well in a screen reader.
 */

const esc = escapeHtml;

/** Escapes, then renders `code` spans, the only markup the descriptions use. */
const prose = (s: string): string => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

const obj = (v: unknown): JsonObject => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {});

/** Follows a local `#/components/...` reference. */
function resolve(doc: JsonObject, node: unknown): JsonObject {
  const r = obj(node).$ref;
  if (typeof r !== 'string' || !r.startsWith('#/')) return obj(node);
  return r
    .slice(2)
    .split('/')
    .reduce<JsonObject>((at, seg) => obj(at[seg]), doc);
}

function typeOf(schema: JsonObject): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as JsonObject[] | undefined;
  if (Array.isArray(union)) return union.map((s) => typeOf(obj(s))).join(' or ');
  const t = schema.type;
  if (t === 'array') return `array of ${typeOf(obj(schema.items))}`;
  if (Array.isArray(t)) return t.join(' or ');
  return typeof t === 'string' ? t : 'any';
}

function constraints(schema: JsonObject): string {
  const parts: string[] = [];
  const names: Record<string, string> = {
    minimum: 'min',
    maximum: 'max',
    exclusiveMinimum: 'greater than',
    minLength: 'min length',
    maxLength: 'max length',
    minItems: 'min items',
    maxItems: 'max items',
    pattern: 'pattern',
    format: 'format',
    default: 'default',
  };
  for (const [k, label] of Object.entries(names)) {
    if (schema[k] !== undefined) parts.push(`${label} <code>${esc(typeof schema[k] === 'string' ? (schema[k] as string) : JSON.stringify(schema[k]))}</code>`);
  }
  return parts.join('; ');
}

interface Row {
  name: string;
  type: string;
  required: boolean;
  notes: string;
}

/** Flattens an object schema into rows, nested fields as `a.b` and array items as `a[].b`. */
function rows(schema: JsonObject, prefix = '', depth = 0): Row[] {
  const out: Row[] = [];
  const props = obj(schema.properties);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const [name, raw] of Object.entries(props)) {
    const field = obj(raw);
    const path = `${prefix}${name}`;
    const notes = [typeof field.description === 'string' ? prose(field.description) : '', constraints(field)].filter(Boolean).join(' ');
    out.push({ name: path, type: typeOf(field), required: required.has(name), notes });
    if (depth < 6) {
      const nullableObject = ((field.anyOf as JsonObject[] | undefined) ?? []).find((s) => obj(s).type === 'object');
      if (field.type === 'object' || nullableObject) out.push(...rows(obj(nullableObject ?? field), `${path}.`, depth + 1));
      if (field.type === 'array' && obj(field.items).type === 'object') out.push(...rows(obj(field.items), `${path}[].`, depth + 1));
    }
  }
  return out;
}

function table(caption: string, list: Row[]): string {
  if (list.length === 0) return `<p>${esc(caption)}: none.</p>`;
  const body = list
    .map((r) => `<tr><th scope="row"><code>${esc(r.name)}</code></th><td>${esc(r.type)}</td><td>${r.required ? 'yes' : 'no'}</td><td>${r.notes}</td></tr>`)
    .join('\n');
  return `<table>\n<caption>${esc(caption)}</caption>\n<thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Notes</th></tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

function operationHtml(doc: JsonObject, method: string, path: string, op: JsonObject): string {
  const id = String(op.operationId);
  const params = (Array.isArray(op.parameters) ? op.parameters : []).map((p) => resolve(doc, p));
  const paramRows = params.map((p) => {
    const schema = obj(p.schema);
    const notes = [typeof p.description === 'string' ? prose(p.description) : '', constraints(schema)].filter(Boolean).join(' ');
    return { name: String(p.name), type: `${typeOf(schema)} (${String(p.in)})`, required: p.required === true, notes };
  });
  const body = obj(obj(obj(op.requestBody).content)['application/json']).schema;
  const responses = obj(op.responses);
  const ok = obj(obj(obj(responses['200']).content)['application/json']).schema;
  const errors = Object.entries(responses)
    .filter(([status]) => status !== '200')
    .map(([status, r]) => `<li><strong>${esc(status)}</strong>: ${prose(String(obj(r).description ?? ''))}</li>`)
    .join('\n');
  return `<section aria-labelledby="${esc(id)}">
<h3 id="${esc(id)}"><code>${method.toUpperCase()} ${esc(path)}</code> — ${esc(String(op.summary ?? id))}</h3>
<p>${prose(String(op.description ?? '')).replace(/\n\n/g, '</p>\n<p>')}</p>
${table('Parameters', paramRows)}
${body ? table('Request body (JSON)', rows(obj(body))) : ''}
${table('200 response body', rows(obj(ok)))}
<h4>Errors</h4>
<ul>
${errors}
</ul>
</section>`;
}

export function referenceHtml(doc: JsonObject, links: { openapi: string; llms: string }): string {
  const info = obj(doc.info);
  const paths = obj(doc.paths);
  const ops: { tag: string; method: string; path: string; op: JsonObject }[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(obj(item)))
      ops.push({ tag: String((obj(op).tags as string[] | undefined)?.[0] ?? 'api'), method, path, op: obj(op) });
  }
  const tags = [...new Set(ops.map((o) => o.tag))];
  const toc = tags
    .map(
      (tag) =>
        `<li>${esc(tag)}<ul>${ops
          .filter((o) => o.tag === tag)
          .map(
            (o) =>
              `<li><a href="#${esc(String(o.op.operationId))}"><code>${o.method.toUpperCase()} ${esc(o.path)}</code></a> ${esc(String(o.op.summary ?? ''))}</li>`,
          )
          .join('')}</ul></li>`,
    )
    .join('\n');
  const errorRows = rows(obj(obj(obj(doc.components).schemas).Error));
  const server = String(obj((doc.servers as unknown[] | undefined)?.[0]).url ?? '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(String(info.title))} ${esc(String(info.version))} — reference</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem 1.5rem 4rem; color: #1a1a1a; }
table { border-collapse: collapse; width: 100%; margin: .75rem 0; font-size: .95rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #f0f0ee; }
code { background: #f3f3f1; padding: 0 .2rem; border-radius: 3px; }
section { border-top: 1px solid #ddd; margin-top: 2rem; }
a:focus { outline: 3px solid #1a5fb4; }
</style>
</head>
<body>
<header>
<h1>${esc(String(info.title))} <small>${esc(String(info.version))}</small></h1>
<p>${prose(String(info.description ?? ''))}</p>
<p>Base URL: <code>${esc(server)}</code>. Send the API key in the <code>X-API-Key</code> header. Machine-readable: <a href="${esc(links.openapi)}">OpenAPI 3.1 document</a>; for models: <a href="${esc(links.llms)}">llms.txt</a>.</p>
</header>
<nav aria-labelledby="toc"><h2 id="toc">Operations</h2>
<ul>
${toc}
</ul>
</nav>
<main>
<h2>Errors</h2>
<p>Every error has this body. Clients branch on <code>error.code</code>.</p>
${table('Error body', errorRows)}
<h2>Operations in detail</h2>
${ops.map((o) => operationHtml(doc, o.method, o.path, o.op)).join('\n')}
</main>
</body>
</html>
`;
}
