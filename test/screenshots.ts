import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether this run refreshes the pictures in docs/screenshots (README, docs). */
export const WRITE_SCREENSHOTS = process.env.OUTREACH_SCREENSHOTS === '1';

/**
 * Where a browser test puts its screenshots: docs/screenshots when OUTREACH_SCREENSHOTS=1 (to
 * refresh the README's pictures), and a scratch folder otherwise, so a test run leaves the
 * worktree clean. The screenshots are taken either way: every test waits for what it pictures.
 */
export function screenshotDir(scratch: string): string {
  const dir = WRITE_SCREENSHOTS ? join(process.cwd(), 'docs', 'screenshots') : scratch;
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A scratch folder for one test file's screenshots, and its removal (for afterAll). */
export function scratchScreenshots(prefix: string): { dir: string; remove: () => void } {
  const scratch = mkdtempSync(join(tmpdir(), prefix));
  return { dir: screenshotDir(scratch), remove: () => rmSync(scratch, { recursive: true, force: true }) };
}
