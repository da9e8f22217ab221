import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

const HOST_DIR = fileURLToPath(new URL('./host/', import.meta.url));

/** The test host (test/apps/host/), bundled into one HTML file like the views themselves. */
export async function buildHost(): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'outreach-host-'));
  try {
    await build({
      configFile: false,
      root: HOST_DIR,
      logLevel: 'warn',
      plugins: [react(), viteSingleFile()],
      build: { outDir: out, emptyOutDir: true, rollupOptions: { input: join(HOST_DIR, 'index.html') } },
    });
    return readFileSync(join(out, 'index.html'), 'utf8');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
