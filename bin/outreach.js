#!/usr/bin/env node
// The CLI runs from the compiled output, which `npm install` builds (the prepare script).
try {
  await import('../dist/cli/index.js');
} catch (err) {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/index.js')) {
    process.stderr.write('outreach: not built yet; run `npm install` (or `npm run build`) in the repository first\n');
    process.exit(1);
  }
  throw err;
}
