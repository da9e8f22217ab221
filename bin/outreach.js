#!/usr/bin/env node
// The CLI runs from the compiled output, which `npm install` builds (the prepare script): the
// bundle of dist/cli/index.js (scripts/bundle.mjs), so a start loads a few files, not hundreds.
try {
  await import('../dist/bundle/outreach.mjs');
} catch (err) {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/bundle/outreach.mjs')) {
    process.stderr.write('outreach: not built yet; run `npm install` (or `npm run build`) in the repository first\n');
    process.exit(1);
  }
  throw err;
}
