#!/usr/bin/env node
// The `store` command: a thin shim over the compiled CLI (run `npm run build` first).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  // Exit explicitly: a drained server must not linger on a handle some library left open.
  (code) => process.exit(typeof code === 'number' ? code : 0),
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exit(1); },
);
