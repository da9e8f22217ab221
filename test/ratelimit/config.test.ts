import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSettings, UsageError } from '../../src/config.js';
import { DEFAULT_LIMITS, RATE_CLASSES, resolveLimits } from '../../src/core/ratelimit/config.js';
import { silentLogger } from '../../src/log.js';
import { createContext } from '../../src/server.js';

const dir = mkdtempSync(join(tmpdir(), 'outreach-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const withConfig = (json: unknown) => {
  const path = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(json));
  return () => resolveSettings({ config: path }, {});
};

describe('limits in the --config file', () => {
  it('defaults are the spec Limits table', () => {
    expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toEqual({
      globalPerMinute: 120,
      perMinute: {
        leads_add: 60,
        leads_batch_add: 10,
        leads_batch_update: 6,
        leads_batch_delete: 10,
        lead_update: 60,
        campaign_start_pause: 30,
        inbox_message: 10,
        profile_lookup: 5,
        people_search: 6,
        lookalike: 6,
        manage: 30,
      },
      accountSpacingSeconds: { profile_lookup: 20, people_search: 15 },
      daily: { profileLookups: { classic: 80, salesNavigator: 150 }, searchResults: { classic: 1000, salesNavigator: 1500 } },
      authFailuresPerMinute: 20,
    });
    expect(Object.keys(RATE_CLASSES).sort()).toEqual(Object.keys(DEFAULT_LIMITS.perMinute).sort());
  });

  it('a partial section raises or lowers only what it names, and reaches the server context', () => {
    const settings = withConfig({
      limits: {
        globalPerMinute: 600,
        perMinute: { leads_add: 120 },
        accountSpacingSeconds: { people_search: 30 },
        daily: { profileLookups: { salesNavigator: 100 } },
        authFailuresPerMinute: 5,
      },
    })();
    const limits = createContext({ ...settings, dbPath: ':memory:' }, silentLogger()).limits.config;
    expect(limits.globalPerMinute).toBe(600);
    expect(limits.perMinute).toEqual({ ...DEFAULT_LIMITS.perMinute, leads_add: 120 });
    expect(limits.accountSpacingSeconds).toEqual({ profile_lookup: 20, people_search: 30 });
    expect(limits.daily).toEqual({ profileLookups: { classic: 80, salesNavigator: 100 }, searchResults: DEFAULT_LIMITS.daily.searchResults });
    expect(limits.authFailuresPerMinute).toBe(5);
  });

  it.each([
    [{ limits: { perMinute: { leads_ad: 5 } } }, 'limits.perMinute.leads_ad: unknown field'],
    [{ limits: { global: 5 } }, 'limits.global: unknown field'],
    [{ limits: { globalPerMinute: 0 } }, 'limits.globalPerMinute'],
    [{ limits: { perMinute: { lookalike: 2.5 } } }, 'limits.perMinute.lookalike'],
    [{ limits: { accountSpacingSeconds: { profile_lookup: -1 } } }, 'limits.accountSpacingSeconds.profile_lookup'],
    [{ limits: { daily: { searchResults: { classic: '1000' } } } }, 'limits.daily.searchResults.classic'],
  ])('refuses %j, naming the field', (json, named) => {
    const load = withConfig(json);
    expect(load).toThrow(UsageError);
    expect(load).toThrow(named);
  });
});
