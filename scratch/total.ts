import { describeTool } from '../src/mcp/server.js';
import { tools } from '../src/tools/index.js';
const full = JSON.stringify(tools.map((t) => describeTool(t)));
const vis = JSON.stringify(tools.map((t) => { const l = describeTool(t); return { name: l.name, title: l.title, description: l.description, inputSchema: l.inputSchema, annotations: l.annotations }; }));
console.log('manage listing total bytes', Buffer.byteLength(full), 'model-visible', Buffer.byteLength(vis));
