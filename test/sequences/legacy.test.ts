import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LEGACY_CONFIGS, runLegacyScenario } from './legacy-scenario.js';

/**
 * An agent written with connectionNote and messages behaves exactly as before the step runner:
 * the same provider calls at the same simulated times with the same words, the same lead states,
 * activity, send records and campaign stats. The expected trace was recorded by running this
 * scenario on the engine before the step runner (main at 578afa6), with and without withdrawal
 * of stale invitations.
 */
const recorded = JSON.parse(readFileSync(new URL('../fixtures/legacy-trace.json', import.meta.url), 'utf8')) as Record<string, unknown>;

describe('the older agent shape through the step runner', () => {
  for (const [name, config] of Object.entries(LEGACY_CONFIGS)) {
    it(`runs exactly as before (${name})`, async () => {
      expect(await runLegacyScenario(config)).toEqual(recorded[name]);
    });
  }
});
