import { it } from 'vitest';

/** True when the CI variable is set the way CI services set it (`true`, `1`, any non-false value). */
export const inCi = (env: NodeJS.ProcessEnv = process.env): boolean => {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== 'false' && v !== '0';
};

/**
 * Whether a suite that needs an optional tool (a browser, a dev dependency) may run. Without
 * the tool it skips on a developer's machine, but under CI a missing tool is a failing test
 * naming what is missing: CI must run every test, never skip one silently.
 */
export function requireTool(what: string, available: boolean): boolean {
  if (!available && inCi()) {
    it(`${what} is available (CI runs every test)`, () => {
      throw new Error(`${what} is missing; with CI set this test must run, not skip`);
    });
  }
  return available;
}
