import { describe, expect, it } from 'vitest';
import { RATE_CLASS_NAMES, RATE_CLASSES } from '../../src/core/ratelimit/config.js';
import { describeTool } from '../../src/mcp/server.js';
import { tools } from '../../src/tools/index.js';
import { SAMPLE_CALLS } from './samples.js';

describe('tool registry', () => {
  it('has unique names and unique routes', () => {
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    const routes = tools.map((t) => `${t.http.method} ${t.http.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it.each(tools.map((t) => [t.name, t] as const))('%s sets every hint, a short description and one route', (_name, tool) => {
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      expect(typeof tool.annotations[hint]).toBe('boolean');
    }
    expect(tool.name).toMatch(/^[a-z][a-z_]+$/);
    expect(tool.title.length).toBeGreaterThan(3);
    expect(tool.description.length).toBeGreaterThan(20);
    expect(tool.description.length).toBeLessThanOrEqual(300);
    expect(['GET', 'POST', 'PATCH']).toContain(tool.http.method);
    expect(tool.http.path.startsWith('/')).toBe(true);
    // Every path parameter is an input field.
    for (const p of tool.pathParams) expect(Object.keys(tool.input.shape)).toContain(p);
    // Read tools are GETs and GETs are read-only.
    expect(tool.annotations.readOnlyHint).toBe(tool.http.method === 'GET');
    expect(SAMPLE_CALLS[tool.name], `sample call for ${tool.name}`).toBeDefined();
  });

  it.each(tools.map((t) => [t.name, t] as const))('%s names the rate class the spec gives its route', (_name, tool) => {
    const shape = (route: string) => route.replace(/:[A-Za-z]+/g, ':');
    const route = shape(`${tool.http.method} ${tool.http.path}`);
    const expected = RATE_CLASS_NAMES.find((c) => RATE_CLASSES[c].routes.some((r) => shape(r) === route));
    expect(tool.rateLimit).toBe(expected);
  });

  it.each(tools.map((t) => [t.name, t] as const))('%s listed schema matches its snapshot', async (name, tool) => {
    const listed = describeTool(tool);
    expect(listed.inputSchema.type).toBe('object');
    await expect(`${JSON.stringify(listed, null, 2)}\n`).toMatchFileSnapshot(`./__toolsnaps__/${name}.json`);
  });
});
