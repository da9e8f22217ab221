import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type UserConfig } from 'vite';
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
 * A lazy `import('zod/v4')` resolves to a module holding only zod's JSON Schema converter.
 * ext-apps 1.x loads zod that way to describe an app's own tools, which no view registers;
 * the bundler cannot tell which members such an import reads, so it would inline all of zod,
 * every locale included (about 260 KB of each view). Static imports of zod are untouched.
 */
function lazyZodJsonSchemaOnly(): Plugin {
  const target = fileURLToPath(new URL('./zod-lazy.ts', import.meta.url));
  return {
    name: 'outreach:lazy-zod-json-schema-only',
    enforce: 'pre',
    resolveId(source, _importer, options) {
      const kind = (options as { kind?: string }).kind;
      if (kind === 'dynamic-import' && (source === 'zod' || source === 'zod/v4')) return target;
      return null;
    },
  };
}

/**
 * One MCP App view (VIEW=insights|campaigns|leads|activity) as one self-contained HTML file:
 * script, styles and images inlined, so the host's sandbox loads nothing from the network.
 * A single-file bundle takes one entry, so build.mjs runs this config once per view.
 */
export default defineConfig((): UserConfig => {
  const view = process.env.VIEW;
  if (!view) throw new Error('Set VIEW to the view to build (build.mjs does).');
  return {
    root: here,
    plugins: [lazyZodJsonSchemaOnly(), react(), viteSingleFile({ removeViteModuleLoader: true })],
    resolve: { alias: PREACT },
    logLevel: 'warn',
    build: {
      outDir: fileURLToPath(new URL('../../dist/ui/views', import.meta.url)),
      emptyOutDir: false,
      sourcemap: false,
      rollupOptions: { input: fileURLToPath(new URL(`./${view}.html`, import.meta.url)) },
    },
  };
});
