#!/usr/bin/env node
import { main } from '../dist/src/cli/main.js';

process.stdout.on('error', (err) => {
  // `beebot export - | head` closes the pipe early: that is not a failure.
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
process.exitCode = await main(process.argv);
