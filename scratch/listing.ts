import { describeTool } from '../src/mcp/server.js';
import { tools, manageTools, defaultTools } from '../src/tools/index.js';
const vis = (ts: readonly any[]) => ts.map((t) => { const l = describeTool(t); return { name: l.name, title: l.title, description: l.description, inputSchema: l.inputSchema, annotations: l.annotations }; });
const all = JSON.stringify(vis(tools));
console.log('default+manage model-visible bytes', Buffer.byteLength(all), 'default', Buffer.byteLength(JSON.stringify(vis(defaultTools))));
for (const t of manageTools) console.log(t.name, Buffer.byteLength(JSON.stringify(vis([t]))), Buffer.byteLength(JSON.stringify(describeTool(t))));
if (process.argv[2]) console.log(JSON.stringify(describeTool(tools.find((t) => t.name === process.argv[2])!).inputSchema, null, 1));
