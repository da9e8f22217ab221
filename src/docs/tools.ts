import type { Tool } from '../tools/define.js';

/** The REST route of a tool as the docs write it: `GET /public/v1/campaigns/{campaignId}`. */
export const routeOf = (tool: Tool): string => `${tool.http.method} /public/v1${tool.http.path.replace(/:(\w+)/g, '{$1}')}`;

/** What a tool may do, in the words a reader choosing a tool set needs. */
export function effectOf(tool: Tool): string {
  const a = tool.annotations;
  const parts = [a.readOnlyHint ? 'read-only' : a.destructiveHint ? 'destructive write' : 'write'];
  if (tool.idempotent) parts.push('takes idempotencyKey');
  if (tool.confirm) parts.push('asks the user to confirm (MCP)');
  if (tool.task) parts.push('may answer with a task (MCP Tasks)');
  if (tool.toolset) parts.push(`${tool.toolset} toolset`);
  return parts.join(', ');
}

export const README_START = '<!-- tools:start -->';
export const README_END = '<!-- tools:end -->';

/** The README's tool table, generated from the registry (`npm run docs` writes it). */
export function toolTable(tools: readonly Tool[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| Tool | REST route | Effect | What it does |',
    '|---|---|---|---|',
    ...tools.map((t) => `| \`${t.name}\` | \`${routeOf(t)}\` | ${effectOf(t)} | ${cell(t.description)} |`),
  ].join('\n');
}

/** `readme` with the text between the markers replaced by the current table. */
export function withToolTable(readme: string, tools: readonly Tool[]): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the ${README_START} … ${README_END} markers`);
  return `${readme.slice(0, start + README_START.length)}\n${toolTable(tools)}\n${readme.slice(end)}`;
}
