// PutObject and CopyObject as the hostile harness sends them: PutObject in every payload mode (a signed SHA-256,
// UNSIGNED-PAYLOAD, signed aws-chunked, aws-chunked with an unsigned or signed checksum trailer), with its faults and
// early refusals; CopyObject from any key, racing writes and deletes of its source.

import {
  BODILESS,
  deliveryFor,
  drawFault,
  drawUploadFault,
  earlyFor,
  type EarlyRefusal,
  type Fault,
} from './faults.js';
import { makeBody } from './model.js';
import type { OpContext } from './op-context.js';
import { chunkOptions, framingTailOf, identityFor, objectPath, payloadFor, settle, uploadShape } from './op-helpers.js';
import { bodySize, readTarget, writeTarget, type PlanItem } from './plan.js';
import { s3Wire } from './s3-wire.js';

/** The share of requests that carry a fault. */
export const FAULT_RATE = 0.4;

const WRONG_ETAG = '"00000000000000000000000000000000"';

export async function putObject(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const target = writeTarget(item, run.buckets, 'put');
  const payload = payloadFor(rng);
  const size = bodySize(item);
  const { spec, bytes } = makeBody(run.seed, [{ id: `put:${item.index}`, size }]);
  const kind = drawUploadFault(item, { shape: uploadShape(payload, size), rate: FAULT_RATE, size });
  const fault: Fault = {
    kind,
    early: earlyFor(item, kind, ['missing-bucket', 'failed-precondition'] satisfies EarlyRefusal[]),
  };
  const bucket = fault.early === 'missing-bucket' ? run.buckets.missing : target.bucket;
  const headers: Record<string, string> = {
    'x-amz-meta-sha256': spec.sha256,
    'content-type': 'application/octet-stream',
  };
  // If-Match with an ETag nothing has: NoSuchKey or PreconditionFailed, before the body is read.
  if (fault.early === 'failed-precondition') headers['if-match'] = WRONG_ETAG;
  else if (target.solo && rng.chance(0.1)) headers['if-none-match'] = '*';
  const wire = s3Wire(ctx.server, {
    method: 'PUT',
    path: objectPath(bucket, target.key),
    headers,
    body: bytes,
    payload,
    identity: identityFor(ctx, bucket, rng),
    chunked: chunkOptions(rng, size, kind),
  });
  const delivery = deliveryFor(kind, wire.body, rng);
  const attempt =
    fault.early === 'missing-bucket'
      ? undefined
      : run.ledger.begin({ bucket, key: target.key, bodies: [spec], via: `PutObject ${payload} ${kind}` });
  const answer = await ctx.send(
    { op: `PutObject:${payload}`, fault, wire, delivery, kind: 'object-write', bytes: size },
    item,
  );
  settle(attempt, answer, { delivery, bodyLength: wire.body.length, framingTail: framingTailOf(payload) });
}

export async function copyObject(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const source = readTarget(item, run.buckets);
  const dest = writeTarget(item, run.buckets, 'copy');
  const kind = drawFault(item, BODILESS, FAULT_RATE / 2);
  const fault: Fault = { kind, early: undefined };
  const copySource = objectPath(source.bucket, source.key);
  const wire = s3Wire(ctx.server, {
    method: 'PUT',
    path: objectPath(dest.bucket, dest.key),
    headers: { 'x-amz-copy-source': copySource },
    identity: identityFor(ctx, dest.bucket, rng),
  });
  const before = run.ledger.candidates(source.bucket, source.key);
  const attempt = run.ledger.begin({
    bucket: dest.bucket,
    key: dest.key,
    bodies: before,
    via: `CopyObject from ${copySource} ${kind}`,
    copyOf: source,
  });
  const bytes = Math.max(0, ...before.map((b) => b.size));
  const delivery = deliveryFor(kind, wire.body, rng);
  const answer = await ctx.send({ op: 'CopyObject', fault, wire, delivery, kind: 'object-write', bytes }, item);
  // The copy read its source at some moment while it ran: any body the source held meanwhile.
  attempt.bodies = [...new Set([...before, ...run.ledger.candidates(source.bucket, source.key)])];
  const failedBody = answer.status === 200 && /<Error>/.test(answer.response?.body.toString('utf8') ?? '');
  settle(attempt, answer, { delivery, bodyLength: 0, framingTail: 0, failedBody });
}
