import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * React's API on Preact (preact/compat), for the views only: the same components, hooks,
 * TanStack Query and ext-apps hooks, at about 15 KB instead of react-dom's 190 KB. The
 * dashboard keeps React. The component tests run the shared components on React, and the
 * view tests (test/apps) run the built views on Preact in a real host.
 */
const PREACT: { find: RegExp; replacement: string }[] = [
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react$/, replacement: 'preact/compat' },
];

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
    resolve: { alias: PREACT },
    logLevel: 'warn',
    build: {
      outDir: fileURLToPath(new URL('../../dist/ui/views', import.meta.url)),
      emptyOutDir: false,
      sourcemap: false,
      // Browsers with light-dark(): older targets make Lightning CSS add two unused variables per color-scheme rule (bytes a view lacks).
      cssTarget: ['chrome123', 'edge123', 'firefox120', 'safari17.5'],
      rollupOptions: {
        input: fileURLToPath(new URL(`./${view}.html`, import.meta.url)),
        // The MCP SDK packages (ext-apps 2 reaches the v2 client and core for its Protocol class)
        // declare no `sideEffects`, so the bundler keeps their modules whole even when a view
        // uses none of their exports. Their modules only define and export, so unused ones go.
        treeshake: { moduleSideEffects: [{ test: /[\\/]node_modules[\\/]@modelcontextprotocol[\\/]/, sideEffects: false }] },
      },
    },
  };
});
