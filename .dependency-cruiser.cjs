/**
 * The layering of docs/architecture.md, checked by `npm test` (test/architecture/layering.test.ts).
 *
 * `allowed` lists every arrow the diagram draws, and nothing else: an import that no arrow
 * allows fails (`not-in-allowed`), so the picture and the code cannot drift apart. The
 * `forbidden` rules repeat the most important boundaries with a message that says why, and
 * forbid cycles. Any violation fails the test; there is no baseline.
 */

/** A folder of src (`core`), or a top-level file of src (`server.ts`). */
const dir = (...names) => `^src/(${names.join('|')})/`;
const file = (...names) => `^src/(${names.join('|')})\\.ts$`;
const either = (...patterns) => patterns.join('|');
const arrow = (from, to, comment) => ({ from: { path: from }, to: { path: to }, comment });

const FACES = '^src/(rest|mcp|web|http|tools)/';
const WORKERS = '^src/(engine|webhooks|lookalike|workers)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  allowed: [
    // Inside a folder (or a worker's folder), anything.
    { from: { path: '^src/([^/]+)/' }, to: { path: '^src/$1/' }, comment: 'within one folder' },
    arrow('^src/workers/', '^src/workers/', 'within the workers'),
    arrow(
      dir('cli'),
      either(dir('core', 'mcp', 'web', 'workers'), file('server', 'config', 'log', 'version')),
      'the CLI starts the server, MCP over stdio and the Lookalike worker, prints dashboard links, and runs verbs',
    ),
    arrow(dir('cli'), file('db/backup'), 'backup and restore copy the database file itself, with no verb and no connection open'),
    arrow(dir('cli'), dir('tools'), "management commands are the operator's tool calls through the one pipeline (validation, idempotency)"),
    arrow(
      file('server'),
      either(dir('core', 'db', 'http', 'rest', 'mcp', 'web', 'tools', 'network', 'workers'), file('config', 'log', 'version')),
      'the composition root',
    ),
    arrow(file('config'), dir('core', 'network'), 'the config file names the engine, limit and Unipile settings'),
    arrow(dir('rest', 'mcp'), either(dir('http', 'tools', 'core'), file('version')), 'a face: the host, the registry and pipeline, the verbs'),
    arrow(dir('web'), dir('http', 'tools', 'core'), 'the dashboard face: the host (body rules), the registry and pipeline, the verbs'),
    arrow(dir('http'), either(dir('tools', 'docs', 'core'), file('log', 'version')), 'the host: discovery lists the registry'),
    arrow(dir('docs'), dir('tools'), 'generated docs read the registry'),
    arrow(dir('tools'), dir('core'), 'a tool is a contract and a call to a verb'),
    arrow(dir('workers'), dir('core'), 'workers schedule; what they read and record goes through verbs'),
    arrow(dir('network'), dir('core'), 'adapters speak the provider contract and write through an injected store'),
    arrow(dir('core'), dir('db'), 'verbs over SQLite'),
    {
      from: { path: dir('core') },
      to: { path: dir('network'), dependencyTypes: ['type-only'] },
      comment: 'core implements the stores the adapters declare: it may name their types, never import adapter code',
    },
  ],
  allowedSeverity: 'error',
  forbidden: [
    {
      name: 'rest-to-mcp',
      comment: 'REST and MCP are faces: neither imports the other; shared code lives in src/http, src/tools or src/core.',
      severity: 'error',
      from: { path: '^src/rest/' },
      to: { path: '^src/mcp/' },
    },
    {
      name: 'mcp-to-rest',
      comment: 'REST and MCP are faces: neither imports the other; shared code lives in src/http, src/tools or src/core.',
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/rest/' },
    },
    {
      name: 'web-to-rest-or-mcp',
      comment: 'The dashboard face (src/web) imports neither other face.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/(rest|mcp)/' },
    },
    {
      name: 'rest-or-mcp-to-web',
      comment: 'Neither REST nor MCP imports the dashboard face.',
      severity: 'error',
      from: { path: '^src/(rest|mcp)/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'network-to-db',
      comment: 'Provider adapters write no domain table: they get an injected store from src/core.',
      severity: 'error',
      from: { path: '^src/network/' },
      to: { path: '^src/db/' },
    },
    {
      name: 'core-to-worker',
      comment: 'Core verbs know nothing of the background loops that call them.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: WORKERS },
    },
    {
      name: 'worker-to-db',
      comment: 'Workers only schedule (leases, queues, timers); everything they read or record goes through core verbs.',
      severity: 'error',
      from: { path: WORKERS },
      to: { path: '^src/db/' },
    },
    {
      name: 'core-to-face',
      comment: 'Core verbs know nothing of HTTP, MCP, the dashboard or the tool registry.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: FACES },
    },
    {
      name: 'face-to-db',
      comment: 'Tools, faces and the host reach data only through core verbs.',
      severity: 'error',
      from: { path: FACES },
      to: { path: '^src/db/' },
    },
    {
      name: 'db-imports-nothing-above',
      comment: 'src/db (schema, migrations, connection, the statements and the cache) is the bottom layer: it imports no other part of src.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/db/' },
    },
    {
      name: 'core-to-adapter-code',
      comment: 'Core may name the store interfaces the adapters declare (types only), never run adapter code.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/network/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'campaign-state-writer',
      comment:
        'Only the campaigns store opens the gate that lets SQLite write a campaign row, its status or its importing lease (src/db/campaign-writer.ts), for the state machine; the connection only registers it.',
      severity: 'error',
      from: { pathNot: '^src/(core/campaigns/store|db/connection)\\.ts$' },
      to: { path: '^src/db/campaign-writer\\.ts$' },
    },
    {
      name: 'drafts-writer',
      comment:
        'Only the drafts store opens the gate that lets SQLite insert, change or delete a draft (src/db/drafts-writer.ts); the connection only registers it.',
      severity: 'error',
      from: { pathNot: '^src/(core/drafts/store|db/connection)\\.ts$' },
      to: { path: '^src/db/drafts-writer\\.ts$' },
    },
    {
      name: 'sql-gate',
      comment: 'Only the gate modules (campaign-writer.ts, drafts-writer.ts) make an SQL gate: another could register a gate function of the same name.',
      severity: 'error',
      from: { pathNot: '^src/db/(campaign|drafts)-writer\\.ts$' },
      to: { path: '^src/db/sql-gate\\.ts$' },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycle anywhere in src/.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    includeOnly: '^src/',
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a face that names a db type still depends on the schema.
    tsPreCompilationDeps: true,
  },
};
