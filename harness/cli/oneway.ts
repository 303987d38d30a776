#!/usr/bin/env node
/**
 * The `oneway` command (package.json "bin": dist/harness/cli/oneway.js). In a clone, the npm
 * scripts run this same file with tsx: `npm run eval -- --planner=eager` is `oneway eval --planner=eager`.
 */
import { run } from './program.ts';

const code = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
});
// A server's stdin or listening socket may still hold the event loop: its work is done and written.
if (process.argv[2] === 'serve' || process.argv[2] === 'guard') process.exit(code);
process.exitCode = code;
