import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * One MCP App view (VIEW=insights|campaigns|leads|activity|drafts) as one self-contained HTML file:
 * script, styles and images inlined, so the host's sandbox loads nothing from the network.
 * A single-file bundle takes one entry, so build.mjs runs this config once per view.
 */
export default defineConfig((): UserConfig => {
  const view = process.env.VIEW;
  if (!view) throw new Error('Set VIEW to the view to build (build.mjs does).');
  return {
    root: here,
    plugins: [react(), viteSingleFile({ removeViteModuleLoader: true })],
    logLevel: 'warn',
    build: {
      outDir: fileURLToPath(new URL('../../dist/ui/views', import.meta.url)),
      emptyOutDir: false,
      sourcemap: false,
      rollupOptions: { input: fileURLToPath(new URL(`./${view}.html`, import.meta.url)) },
    },
  };
});
