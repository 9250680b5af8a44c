// The crash loop's workload: PUT (some with tags), overwrite, multipart (one or two parts), DELETE, DELETE of one
// version, DeleteObjects, COPY, PutObjectTagging, and admin upload and delete, from a few concurrent workers, until
// the server is killed. Operations on one key never overlap (each op locks its keys), so per key the commit order is
// the acknowledgement order and at most one operation is left unknown by the kill. Acknowledged effects go straight
// into the model; cut-off ones are returned for resolution against the database. The operations are crash-ops.ts;
// the round that sends them and records outcomes is crash-round.ts.

import { randomInt } from 'node:crypto';
import { AbortMultipartUploadCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { OPS, pickOp } from './crash-ops.js';
import { Round, type OpFn, type RoundOutcome, type WorkloadOptions } from './crash-round.js';

export type { AdminAck, RoundOutcome, WorkloadOptions } from './crash-round.js';

/** The multipart uploads an earlier kill left (listed before this round starts any). */
async function listLeftovers(r: Round): Promise<{ Bucket: string; Key: string; UploadId: string }[]> {
  const out = [];
  for (const bucket of r.model.buckets.keys()) {
    const res = await r.s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    for (const u of res.Uploads ?? [])
      out.push({ Bucket: bucket, Key: u.Key as string, UploadId: u.UploadId as string });
  }
  return out;
}

/**
 * Runs the workload and kills the server (SIGKILL) `killAfterMs` after the start, with requests in flight. Resolves
 * once every worker has stopped.
 */
export async function runUntilKilled(opts: WorkloadOptions): Promise<RoundOutcome> {
  const r = new Round(opts);
  const buckets = [...opts.model.buckets.values()];
  const killed = new Promise<void>((resolve) => setTimeout(resolve, opts.killAfterMs)).then(async () => {
    r.stopping = true;
    r.outcome.killedAt = Date.now();
    await opts.server.kill();
  });
  // Each abort is all-or-nothing too, and an upload's parts are blobs the boot GC must not take (nor leave behind).
  const leftovers = await listLeftovers(r).catch((err: unknown) => {
    if (!r.stopping) r.outcome.failures.push(`listing leftover uploads: ${String(err)}`);
    return [];
  });
  const worker = async (n: number): Promise<void> => {
    for (const upload of n === 0 ? leftovers : []) {
      if (r.stopping) return;
      await r.s3.send(new AbortMultipartUploadCommand(upload)).catch((err: unknown) => {
        if (!r.stopping) r.outcome.failures.push(`abort of a leftover upload: ${String(err)}`);
      });
    }
    // An admin write first, so most rounds have one acknowledged long enough before the kill for the audit check.
    if (n === 1) await (OPS['adminUpload'] as OpFn)(r, (buckets[0] as (typeof buckets)[number]).name, true);
    while (!r.stopping) {
      const bucket = buckets[randomInt(buckets.length)] as (typeof buckets)[number];
      const ran = await (OPS[pickOp(bucket)] as OpFn)(r, bucket.name, bucket.versioned);
      if (!ran) await new Promise((res) => setTimeout(res, 2));
    }
  };
  await Promise.all([killed, ...Array.from({ length: opts.concurrency ?? 6 }, (_, n) => worker(n))]);
  r.s3.destroy();
  return r.outcome;
}
