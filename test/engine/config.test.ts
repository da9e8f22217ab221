import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile, UsageError } from '../../src/config.js';
import { ENGINE_DEFAULTS, resolveEngineSettings } from '../../src/workers/outreach/index.js';

describe('engine section of the config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engine-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (json: unknown) => {
    const path = join(dir, `${Math.random()}.json`);
    writeFileSync(path, JSON.stringify(json));
    return path;
  };

  it('accepts the documented fields', () => {
    const config = readConfigFile(
      write({
        engine: {
          workingHours: { start: '08:00', end: '18:00' },
          spacingSeconds: { min: 30, max: 90 },
          concurrency: 2,
          invitationTimeoutDays: 14,
          replyWaitDays: 3,
        },
      }),
    );
    const s = resolveEngineSettings(config.engine);
    expect(s.safety.workingHours).toEqual({ startMinute: 480, endMinute: 1080, days: new Set([1, 2, 3, 4, 5]) });
    expect([s.spacingMinMs, s.spacingMaxMs, s.concurrency]).toEqual([30_000, 90_000, 2]);
  });

  it('defaults to weekdays 09:00-18:00 UTC, 100 invitations a week, with a 1 to 3 minute spacing', () => {
    const s = resolveEngineSettings();
    expect(s.safety.workingHours).toEqual({ startMinute: 540, endMinute: 1080, days: new Set([1, 2, 3, 4, 5]) });
    expect(s.safety.timeZone).toBe('UTC');
    expect(s.safety.weeklyConnectionRequestLimit).toBe(100);
    expect(s.safety.withdrawStaleInvitations).toBe(true);
    expect(s.safety.warmUp).toEqual({ days: 14, connectionRequestsStart: 5, messagesStart: 10, onConnect: true });
    expect(resolveEngineSettings({ warmUp: { onConnect: false } }).safety.warmUp).toEqual({
      days: 14,
      connectionRequestsStart: 5,
      messagesStart: 10,
      onConnect: false,
    });
    expect(resolveEngineSettings({ workingHours: null }).safety.workingHours).toBeNull();
    expect([s.spacingMinMs, s.spacingMaxMs]).toEqual([ENGINE_DEFAULTS.spacingSeconds.min * 1000, ENGINE_DEFAULTS.spacingSeconds.max * 1000]);
  });

  it.each([
    [{ engine: { bogus: 1 } }, 'engine.bogus'],
    [{ engine: { workingHours: { start: '9am', end: '17:00' } } }, 'engine.workingHours.start'],
    [{ engine: { workingHours: { start: '18:00', end: '09:00' } } }, 'engine.workingHours.end'],
    [{ engine: { spacingSeconds: { min: 10, max: 5 } } }, 'engine.spacingSeconds.max'],
    [{ engine: { concurrency: 0 } }, 'engine.concurrency'],
    [{ engine: { timeZone: 'Mars/Olympus' } }, 'engine.timeZone'],
    [{ engine: { weeklyConnectionRequestLimit: 0 } }, 'engine.weeklyConnectionRequestLimit'],
    [{ engine: { warmUp: { days: 0 } } }, 'engine.warmUp.days'],
    [{ engine: { warmUp: { onConnect: 'no' } } }, 'engine.warmUp.onConnect'],
  ])('refuses %j naming %s', (json, path) => {
    expect(() => readConfigFile(write(json))).toThrow(UsageError);
    expect(() => readConfigFile(write(json))).toThrow(path);
  });
});
