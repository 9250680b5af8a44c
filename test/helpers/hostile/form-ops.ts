// POST Object as the hostile harness sends it: a browser form upload with a signed policy (the root key or the scoped
// key), whose file's size the server cannot know before it has read it; the form sometimes without Content-Length
// (chunked transfer coding). With the body faults, header garbage and a missing bucket.

import { signedPolicyFields } from '../post-form.js';
import { deliveryFor, drawUploadFault, earlyFor, WITH_BODY, type Fault } from './faults.js';
import { formBody, httpChunked } from './http-framing.js';
import { makeBody } from './model.js';
import type { OpContext } from './op-context.js';
import { framingTailOf, identityFor, settle } from './op-helpers.js';
import { bodySize, writeTarget, type PlanItem } from './plan.js';
import type { WireRequest } from './raw-client.js';
import { FAULT_RATE } from './write-ops.js';

export async function postObject(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const target = writeTarget(item, run.buckets, 'post');
  const size = bodySize(item);
  const { spec, bytes } = makeBody(run.seed, [{ id: `post:${item.index}`, size }]);
  const kind = drawUploadFault(item, { shape: WITH_BODY, rate: FAULT_RATE, size });
  const fault: Fault = { kind, early: earlyFor(item, kind, ['missing-bucket']) };
  const bucket = fault.early === 'missing-bucket' ? run.buckets.missing : target.bucket;
  const identity = identityFor(ctx, target.bucket, rng);
  const status = rng.pick(['200', '201', '204']);
  const policy = signedPolicyFields({
    bucket,
    accessKeyId: identity.accessKeyId,
    secretAccessKey: identity.secretAccessKey,
    conditions: [
      ['starts-with', '$key', ''],
      { 'x-amz-meta-sha256': spec.sha256 },
      { success_action_status: status },
      ...(rng.chance(0.3) ? [['content-length-range', 0, 8 * 1024 * 1024]] : []),
    ],
  });
  const form = formBody(
    { key: target.key, 'x-amz-meta-sha256': spec.sha256, success_action_status: status, ...policy },
    bytes,
    rng,
  );
  const chunked = rng.chance(0.2);
  const body = chunked ? httpChunked(form.body, rng) : form.body;
  const wire: WireRequest = {
    method: 'POST',
    path: `/${bucket}`,
    body,
    headers: [
      ['host', `127.0.0.1:${ctx.server.port}`],
      ['content-type', form.contentType],
      chunked ? ['transfer-encoding', 'chunked'] : ['content-length', String(body.length)],
    ],
  };
  const delivery = deliveryFor(kind, body, rng);
  const attempt = fault.early
    ? undefined
    : run.ledger.begin({ bucket, key: target.key, bodies: [spec], via: `PostObject ${kind}` });
  const answer = await ctx.send(
    { op: chunked ? 'PostObject:chunked' : 'PostObject', fault, wire, delivery, kind: 'object-write', bytes: size },
    item,
  );
  settle(attempt, answer, { delivery, bodyLength: body.length, framingTail: framingTailOf('form') });
}
