import { main } from './main.js';

// A reader that stops early (`outreach audit --csv | head`) closes the pipe: it has what it
// wanted, so the command ends quietly, as Unix tools do, rather than with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
