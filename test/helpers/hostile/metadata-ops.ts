// Metadata commits as the hostile harness sends them: DeleteObject, DeleteObjects and Put/Get/DeleteObjectTagging,
// mostly on the hot keys that other workers are writing at the same moment. Under the free-space reserve these must
// never find the volume full.

import { createHash } from 'node:crypto';
import { BODILESS, drawFault, WITH_BODY, type Fault } from './faults.js';
import type { Answer, OpContext } from './op-context.js';
import { chunkOptions, identityFor, objectPath, payloadFor, uploadShape } from './op-helpers.js';
import { HOT_KEYS, readTarget, type PlanItem } from './plan.js';
import { s3Wire } from './s3-wire.js';
import { FAULT_RATE } from './write-ops.js';

/** Deletes go mostly to hot keys, so that most keys of their own stay to be read back exactly at the end. */
function deleteTarget(item: PlanItem, ctx: OpContext): { bucket: string; key: string } {
  const { rng } = item;
  if (rng.chance(0.2)) return readTarget(item, ctx.run.buckets);
  return {
    bucket: rng.chance(0.3) ? ctx.run.buckets.versioned : ctx.run.buckets.plain,
    key: `hot/${rng.int(0, HOT_KEYS - 1)}`,
  };
}

export async function deleteObject(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const target = deleteTarget(item, ctx);
  if (target.key.startsWith('big/')) return;
  const kind = drawFault(item, BODILESS, FAULT_RATE / 2);
  ctx.run.ledger.deleted(target.bucket, target.key);
  const wire = s3Wire(ctx.server, {
    method: 'DELETE',
    path: objectPath(target.bucket, target.key),
    identity: identityFor(ctx, target.bucket, rng),
  });
  await ctx.send({ op: 'DeleteObject', fault: { kind, early: undefined }, wire, kind: 'metadata' }, item);
}

export async function deleteObjects(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const bucket = rng.chance(0.3) ? ctx.run.buckets.versioned : ctx.run.buckets.plain;
  const keys = [...new Set(Array.from({ length: rng.int(1, 20) }, () => deleteTarget(item, ctx).key))].filter(
    (k) => !k.startsWith('big/'),
  );
  for (const key of keys) ctx.run.ledger.deleted(bucket, key);
  const xml = `<Delete>${rng.chance(0.3) ? '<Quiet>true</Quiet>' : ''}${keys.map((k) => `<Object><Key>${k}</Key></Object>`).join('')}</Delete>`;
  const body = Buffer.from(xml);
  const payload = payloadFor(rng);
  const kind = drawFault(item, uploadShape(payload, body.length), FAULT_RATE / 2);
  const wire = s3Wire(ctx.server, {
    method: 'POST',
    path: `/${bucket}?delete=`,
    body,
    payload,
    headers: { 'content-md5': createHash('md5').update(body).digest('base64'), 'content-type': 'application/xml' },
    identity: identityFor(ctx, bucket, rng),
    chunked: chunkOptions(rng, body.length, kind),
  });
  const answer = await ctx.send(
    { op: 'DeleteObjects', fault: { kind, early: undefined }, wire, kind: 'metadata' },
    item,
  );
  checkPerKeyErrors(ctx, answer, { op: 'DeleteObjects', fault: { kind, early: undefined } });
}

/** A 200 DeleteResult may report keys that failed: never with a server error, nor a full volume under the reserve. */
function checkPerKeyErrors(ctx: OpContext, answer: Answer, call: { op: string; fault: Fault }): void {
  if (answer.status !== 200) return;
  const codes = [
    ...(answer.response?.body.toString('utf8') ?? '').matchAll(/<Error>[\s\S]*?<Code>([^<]*)<\/Code>/g),
  ].map((m) => m[1]);
  for (const code of codes) {
    if (code === 'InternalError' || (code === 'InsufficientStorage' && ctx.run.reserveHolds)) {
      const detail = `a key of the batch failed with ${code}`;
      ctx.fail({
        invariant: 'no-5xx',
        op: call.op,
        fault: call.fault.kind,
        status: 200,
        code,
        requestId: answer.requestId,
        detail,
      });
    }
  }
}

export async function objectTagging(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const target = readTarget(item, ctx.run.buckets);
  const action = rng.weighted({ put: 5, get: 3, delete: 2 });
  const path = `${objectPath(target.bucket, target.key)}?tagging=`;
  const identity = identityFor(ctx, target.bucket, rng);
  const tags = Array.from(
    { length: rng.int(0, 10) },
    (_, i) => `<Tag><Key>k${i}</Key><Value>${'v'.repeat(rng.int(0, 256))}</Value></Tag>`,
  ).join('');
  const body = action === 'put' ? Buffer.from(`<Tagging><TagSet>${tags}</TagSet></Tagging>`) : Buffer.alloc(0);
  const kind = drawFault(item, body.length > 0 ? WITH_BODY : BODILESS, FAULT_RATE / 2);
  const method = action === 'put' ? 'PUT' : action === 'get' ? 'GET' : 'DELETE';
  const wire = s3Wire(ctx.server, { method, path, body, identity });
  await ctx.send(
    {
      op: `ObjectTagging:${action}`,
      fault: { kind, early: undefined },
      wire,
      kind: action === 'get' ? 'read' : 'metadata',
    },
    item,
  );
}
