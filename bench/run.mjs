// @ts-check
// `npm run bench`: starts Store, the floor server and (full runs) s3rver on free loopback ports with temp data dirs,
// runs
// every scenario on each, prints the Store/floor and Store/s3rver table and writes bench/results/<timestamp>.json and
// latest.json.
// Flags: --soak=SECONDS, --quick, --only=<substr>[,<substr>...], --store-cmd="<cmd args>" (default `node bin/store.js
// serve`),
// --signer=auto|real|stub, --rounds=<n>, --tmp-dir=<dir>, --with-s3rver / --without-s3rver, --objects=<n>
// (the scale run of bench/scale.mjs instead), --webhooks (Store delivers every event to a receiver child process),
// --webhooks-ab (Store with webhooks against Store without, instead of the floor), --webhook-cost=on|off|external
// (CPU per 4 KiB PUT by thread, with --puts=<n> and --rate=<n>), --read-cost=HEAD|GET (CPU per small read by thread,
// with --ops=<n> and --read-size=<bytes>), --upload-cost=put|multipart (CPU per MB of large uploads by thread, and the
// peak RSS, with --uploads=<n>), --download-cost=<concurrency> (the same for 64 MiB GETs, with --downloads=<n>),
// --notify-ab, --notify-cost=<kind>|all (with --puts=<n>) and --notify-outage[=SECONDS] (bucket notifications).
// Each mode is one file under bench/modes/; see bench/README.md.

import { parseOptions } from './options.mjs';
import { cleanup, dumpServerOutput, killEverythingNow, log } from './servers.mjs';
import { compareMode } from './modes/compare.mjs';
import { downloadCostMode } from './modes/download-cost.mjs';
import { readCostMode } from './modes/read-cost.mjs';
import { scaleMode } from './modes/scale.mjs';
import { soakMode } from './modes/soak.mjs';
import { notifyAbMode } from './modes/notify-ab.mjs';
import { notifyCostMode } from './modes/notify-cost.mjs';
import { notifyOutageMode } from './modes/notify-outage.mjs';
import { uploadCostMode } from './modes/upload-cost.mjs';
import { webhookCostMode } from './modes/webhook-cost.mjs';

let interrupted = false;

/** One mode per run, chosen by its flag; the comparison with the floor (and s3rver) when none is given. */
async function main() {
  const opts = parseOptions();
  if (opts.objects > 0) return scaleMode(opts);
  if (opts.soak > 0) return soakMode(opts);
  if (opts.webhookCost) return webhookCostMode(opts);
  if (opts.readCost) return readCostMode(opts);
  if (opts.uploadCost) return uploadCostMode(opts);
  if (opts.downloadCost) return downloadCostMode(opts);
  if (opts.notifyAb) return notifyAbMode(opts);
  if (opts.notifyCost) return notifyCostMode(opts);
  if (opts.notifyOutage > 0) return notifyOutageMode(opts);
  return compareMode(opts);
}

// Last resort when the run dies without reaching cleanup(): no server and no temp data may outlive it.
process.on('exit', killEverythingNow);
// `npm run bench | head` must still stop the servers and remove the temp data.
for (const out of [process.stdout, process.stderr]) {
  out.on('error', (/** @type {NodeJS.ErrnoException} */ err) => {
    if (err.code !== 'EPIPE') throw err;
  });
}
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(signal, () => {
    interrupted = true;
    log(`\n${signal}: stopping servers and removing temp data`);
    cleanup().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (err) {
  process.exitCode = 1;
  if (!interrupted) {
    log(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
    dumpServerOutput();
  }
} finally {
  await cleanup();
}
