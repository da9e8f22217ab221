import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VIEW_BYTES } from '../../bench/lib/report.js';
import { APP_VIEWS } from '../../src/mcp/apps.js';

/**
 * Each view is one HTML document a host reads whole through resources/read, so its size is
 * its cost in every conversation that shows it: the budget is 300 KB, as built by npm run build.
 */
describe('the built MCP App views', () => {
  it.each(APP_VIEWS.map((v) => v.name))('%s is under 300 KB', (name) => {
    const bytes = readFileSync(new URL(`../../dist/ui/views/${name}.html`, import.meta.url)).length;
    expect(bytes).toBeGreaterThan(10_000);
    expect(bytes).toBeLessThan(VIEW_BYTES);
  });
});
