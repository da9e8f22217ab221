// Writes docs/webhook-schemas/*.json from the zod payload schemas (run: npm run docs:webhooks).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEBHOOK_SCHEMA_DIR, webhookSchemaFiles } from '../dist/core/webhooks/json-schema.js';

const dir = join(fileURLToPath(new URL('..', import.meta.url)), WEBHOOK_SCHEMA_DIR);
mkdirSync(dir, { recursive: true });
const files = webhookSchemaFiles();
for (const name of readdirSync(dir)) if (name.endsWith('.json') && !files.has(name)) rmSync(join(dir, name));
for (const [name, text] of files) writeFileSync(join(dir, name), text);
process.stdout.write(`wrote ${files.size} schemas to ${WEBHOOK_SCHEMA_DIR}/\n`);
