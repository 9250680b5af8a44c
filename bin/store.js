#!/usr/bin/env node
// The `store` command: a thin shim over the compiled CLI (run `npm run build` first).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exit(1); },
);
