#!/usr/bin/env node
// The `store` command: a thin shim over the compiled CLI (run `npm run build` first).
// Every PUT waits on a few fsyncs in libuv's threadpool (blob, directory, WAL); the default of 4 threads would
// queue concurrent uploads behind each other. Must be set before the pool's first use, hence the dynamic import.
process.env.UV_THREADPOOL_SIZE ??= '16';
const { main } = await import('../dist/cli/main.js');

main(process.argv.slice(2)).then(
  // Exit explicitly: a drained server must not linger on a handle some library left open.
  (code) => process.exit(typeof code === 'number' ? code : 0),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
