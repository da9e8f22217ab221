import { expect } from 'vitest';
import type { Ctx } from '../../src/core/context.js';
import { auditSafety, type AuditReport } from '../../src/core/safety/audit.js';
import type { EngineSettings } from '../../src/workers/outreach/index.js';

/**
 * The test helper of the safety auditor: replays what the engine did and fails the test with
 * every broken rule listed. Returns the report, so a test can also check how much it covered.
 */
export function expectSafe(ctx: Ctx, settings: EngineSettings): AuditReport {
  const report = auditSafety(ctx, { safety: settings.safety, spacingMinMs: settings.spacingMinMs });
  expect(report.violations.map((v) => `${v.accountId} ${v.day} ${v.rule}: ${v.detail}`)).toEqual([]);
  return report;
}
