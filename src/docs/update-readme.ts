import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tools } from '../tools/index.js';
import { withToolTable } from './tools.js';

/** `npm run docs`: rewrites the README's tool table from the registry. */
const path = fileURLToPath(new URL('../../README.md', import.meta.url));
const before = readFileSync(path, 'utf8');
const after = withToolTable(before, tools);
if (after !== before) writeFileSync(path, after);
process.stdout.write(after === before ? 'README.md tool table is up to date.\n' : 'README.md tool table regenerated.\n');
