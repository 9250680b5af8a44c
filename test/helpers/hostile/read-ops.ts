// Reads as the hostile harness sends them: GetObject (whole, a Range, or a client that stops reading the answer and
// goes away), HeadObject, ListObjectsV2 and ListObjectVersions. Every body read is checked against the ledger.

import { BODILESS, DOWNLOAD, drawFault, type Fault } from './faults.js';
import type { OpContext } from './op-context.js';
import { identityFor, objectPath } from './op-helpers.js';
import { BIG_KEYS, HOT_KEYS, readTarget, type PlanItem } from './plan.js';
import { checkRead } from './read-check.js';
import { s3Wire } from './s3-wire.js';
import { FAULT_RATE } from './write-ops.js';

export async function getObject(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const big = rng.chance(0.2);
  const target = big
    ? { bucket: run.buckets.plain, key: `big/${rng.int(0, BIG_KEYS - 1)}` }
    : readTarget(item, run.buckets);
  // A client that stops reading is mostly a large download: the server's writes then really block.
  const kind = drawFault(item, DOWNLOAD, big ? 0.6 : FAULT_RATE / 2);
  const fault: Fault = { kind, early: undefined };
  const headers: Record<string, string> = {};
  const roll = rng.next();
  if (roll < 0.15) headers['range'] = `bytes=${rng.int(0, 64 * 1024)}-${rng.int(64 * 1024, 5 * 1024 * 1024)}`;
  else if (roll < 0.22) headers['range'] = `bytes=-${rng.int(1, 256 * 1024)}`;
  else if (roll < 0.27) headers['range'] = `bytes=${rng.int(0, 1024 * 1024)}-`;
  const wire = s3Wire(ctx.server, {
    method: 'GET',
    path: objectPath(target.bucket, target.key),
    headers,
    identity: identityFor(ctx, target.bucket, rng),
  });
  const answer = await ctx.send(
    { op: headers['range'] ? 'GetObject:range' : 'GetObject', fault, wire, kind: 'read' },
    item,
  );
  const response = answer.response;
  if (!response) return;
  const wrong = checkRead(run.ledger, run.seed, {
    ...target,
    status: answer.status,
    headers: response.headers,
    body: response.body,
    isHead: false,
  });
  if (wrong)
    ctx.fail({
      invariant: 'read-back',
      op: 'GetObject',
      fault: kind,
      status: answer.status,
      requestId: answer.requestId,
      detail: wrong,
    });
}

export async function headObject(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const target = readTarget(item, run.buckets);
  const kind = drawFault(item, BODILESS, FAULT_RATE / 2);
  const wire = s3Wire(ctx.server, {
    method: 'HEAD',
    path: objectPath(target.bucket, target.key),
    identity: identityFor(ctx, target.bucket, rng),
  });
  const answer = await ctx.send({ op: 'HeadObject', fault: { kind, early: undefined }, wire, kind: 'read' }, item);
  if (!answer.response) return;
  const wrong = checkRead(run.ledger, run.seed, {
    ...target,
    status: answer.status,
    headers: answer.response.headers,
    body: answer.response.body,
    isHead: true,
  });
  if (wrong)
    ctx.fail({
      invariant: 'read-back',
      op: 'HeadObject',
      fault: kind,
      status: answer.status,
      requestId: answer.requestId,
      detail: wrong,
    });
}

export async function listObjects(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const versions = item.op === 'ListObjectVersions';
  const bucket = versions || rng.chance(0.3) ? run.buckets.versioned : run.buckets.plain;
  const prefix = rng.pick(['', 'hot/', 'put/', 'big/', 'post/', `hot/${rng.int(0, HOT_KEYS - 1)}`]);
  const query = versions
    ? `versions=&max-keys=${rng.int(1, 1000)}&prefix=${encodeURIComponent(prefix)}`
    : `list-type=2&max-keys=${rng.int(1, 1000)}&prefix=${encodeURIComponent(prefix)}${rng.chance(0.3) ? '&delimiter=%2F' : ''}`;
  const kind = drawFault(item, DOWNLOAD, FAULT_RATE / 2);
  const wire = s3Wire(ctx.server, {
    method: 'GET',
    path: `/${bucket}?${query}`,
    identity: identityFor(ctx, bucket, rng),
  });
  await ctx.send(
    { op: versions ? 'ListObjectVersions' : 'ListObjectsV2', fault: { kind, early: undefined }, wire, kind: 'read' },
    item,
  );
}
