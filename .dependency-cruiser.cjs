/**
 * The layering rules of docs/architecture.md, checked by `npm test`
 * (test/architecture/layering.test.ts). Any violation fails the test; there is no baseline.
 */
const FACES = '^src/(rest|mcp|web|http|tools)/';
const WORKERS = '^src/(engine|webhooks|lookalike|workers)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
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
      name: 'campaign-state-writer',
      comment:
        'Only the campaign state machine opens the gate that lets SQLite write a campaign row, its status or its importing lease (src/db/campaign-writer.ts); the connection only registers it.',
      severity: 'error',
      from: { pathNot: '^src/(core/campaigns/state-machine|db/connection)\\.ts$' },
      to: { path: '^src/db/campaign-writer\\.ts$' },
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
