// Builds every MCP App view into dist/ui/views/<name>.html (npm run build runs this after tsc).
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

export const VIEWS = ['insights', 'campaigns', 'leads', 'activity', 'drafts'];

const configFile = fileURLToPath(new URL('./vite.config.ts', import.meta.url));
rmSync(new URL('../../dist/ui/views', import.meta.url), { recursive: true, force: true });
for (const view of VIEWS) {
  process.env.VIEW = view;
  await build({ configFile });
}
