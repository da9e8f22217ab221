import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigFile } from '../../src/config.js';
import { DEFAULT_LIMITS, RATE_CLASS_NAMES } from '../../src/core/ratelimit/config.js';

/** docs/rate-limits.md is what self-hosters configure from, so its table and example are checked against the code. */
const doc = readFileSync(new URL('../../docs/rate-limits.md', import.meta.url), 'utf8');

describe('docs/rate-limits.md', () => {
  it('lists every policy with its default', () => {
    const section = doc.split('## What is limited')[1]!.split('\n## ')[0]!;
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    const documented = Object.fromEntries(
      rows.map((row) => {
        const cells = row.split('|').map((c) => c.trim());
        return [cells[1]!.replace(/`/g, ''), cells[3]!];
      }),
    );
    const d = DEFAULT_LIMITS;
    const pair = (p: { classic: number; salesNavigator: number }) => `${p.classic} classic, ${p.salesNavigator} Sales Navigator`;
    expect(documented).toEqual({
      global: `${d.globalPerMinute}/minute`,
      ...Object.fromEntries(RATE_CLASS_NAMES.map((c) => [c, `${d.perMinute[c]}/minute`])),
      profile_lookup_spacing: `1 per ${d.accountSpacingSeconds.profile_lookup} s`,
      people_search_spacing: `1 per ${d.accountSpacingSeconds.people_search} s`,
      profile_lookup_daily: pair(d.daily.profileLookups),
      people_search_daily: pair(d.daily.searchResults),
      auth_failures: `${d.authFailuresPerMinute}/minute`,
    });
  });

  it('its example config is valid', () => {
    const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    expect(ConfigFile.safeParse(JSON.parse(example!)).success).toBe(true);
  });
});
