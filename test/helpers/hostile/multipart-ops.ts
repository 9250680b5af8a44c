// An S3 multipart upload as the hostile harness runs it: CreateMultipartUpload, UploadPart (in any payload mode,
// aws-chunked included), ListParts, then CompleteMultipartUpload or AbortMultipartUpload, with a fault on one step.
// Mostly one part (any size may be the last part); now and then a 5 MiB part and a small last one.

import { uriEncode } from '../../../src/sigv4/canonical.js';
import { BODILESS, deliveryFor, drawFault, earlyFor, NO_FAULT, type Fault, type RequestShape } from './faults.js';
import { hash, makeBody } from './model.js';
import type { OpContext } from './op-context.js';
import { chunkOptions, framingTailOf, identityFor, objectPath, payloadFor, settle, uploadShape } from './op-helpers.js';
import { bodySize, writeTarget, type PlanItem } from './plan.js';
import { bodyBytes } from './rng.js';
import { s3Wire } from './s3-wire.js';
import { FAULT_RATE } from './write-ops.js';

const MiB = 1024 * 1024;

export async function multipartUpload(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const target = writeTarget(item, run.buckets, 'mpu');
  const identity = identityFor(ctx, target.bucket, rng);
  const path = objectPath(target.bucket, target.key);
  const sizes = rng.chance(0.08) ? [5 * MiB, rng.int(1, 256 * 1024)] : [bodySize(item)];
  const parts = sizes.map((size, i) => ({ id: `mpu:${item.index}:${i + 1}`, size }));
  const { spec } = makeBody(run.seed, parts);
  const faultyStep = rng.chance(FAULT_RATE) ? rng.pick(['create', 'part', 'list', 'complete']) : undefined;
  const stepFault = (step: string, shape: RequestShape): Fault =>
    step === faultyStep ? { kind: drawFault(item, shape, 1), early: undefined } : NO_FAULT;

  const createFault = stepFault('create', BODILESS);
  const create = s3Wire(ctx.server, {
    method: 'POST',
    path: `${path}?uploads=`,
    headers: { 'x-amz-meta-sha256': spec.sha256 },
    identity,
  });
  const created = await ctx.send(
    { op: 'CreateMultipartUpload', fault: createFault, wire: create, kind: 'metadata' },
    item,
  );
  const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created.response?.body.toString('utf8') ?? '')?.[1];
  if (created.status !== 200 || uploadId === undefined) return;

  const etags: string[] = [];
  for (const [i, part] of parts.entries()) {
    const payload = payloadFor(rng);
    const fault = { ...stepFault(i === parts.length - 1 ? 'part' : '', uploadShape(payload, part.size)) };
    fault.early = fault.kind === 'none' ? undefined : earlyFor(item, fault.kind, ['missing-upload']);
    const body = bodyBytes(run.seed, part.id, part.size);
    etags.push(hash('md5', body));
    const id = fault.early === 'missing-upload' ? `${uploadId}x` : uploadId;
    const wire = s3Wire(ctx.server, {
      method: 'PUT',
      path: `${path}?partNumber=${i + 1}&uploadId=${uriEncode(id)}`,
      body,
      payload,
      identity,
      chunked: chunkOptions(rng, part.size, fault.kind),
    });
    await ctx.send({ op: `UploadPart:${payload}`, fault, wire, kind: 'object-write', bytes: part.size }, item);
  }

  const listFault = stepFault('list', { ...BODILESS, readsBody: true });
  const list = s3Wire(ctx.server, { method: 'GET', path: `${path}?uploadId=${uriEncode(uploadId)}`, identity });
  await ctx.send({ op: 'ListParts', fault: listFault, wire: list, kind: 'read' }, item);

  if (rng.chance(0.15)) {
    const abort = s3Wire(ctx.server, { method: 'DELETE', path: `${path}?uploadId=${uriEncode(uploadId)}`, identity });
    await ctx.send({ op: 'AbortMultipartUpload', fault: NO_FAULT, wire: abort, kind: 'metadata' }, item);
    return;
  }
  const partsXml = etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>"${e}"</ETag></Part>`).join('');
  const xml = `<CompleteMultipartUpload>${partsXml}</CompleteMultipartUpload>`;
  const completeFault = stepFault('complete', { ...BODILESS, hasBody: true });
  const complete = s3Wire(ctx.server, {
    method: 'POST',
    path: `${path}?uploadId=${uriEncode(uploadId)}`,
    body: Buffer.from(xml),
    identity,
  });
  const delivery = deliveryFor(completeFault.kind, complete.body, rng);
  const attempt = run.ledger.begin({
    bucket: target.bucket,
    key: target.key,
    bodies: [spec],
    via: `CompleteMultipartUpload ${completeFault.kind}`,
  });
  const answer = await ctx.send(
    { op: 'CompleteMultipartUpload', fault: completeFault, wire: complete, delivery, kind: 'object-write', bytes: 0 },
    item,
  );
  const failedBody = answer.status === 200 && /<Error>/.test(answer.response?.body.toString('utf8') ?? '');
  settle(attempt, answer, {
    delivery,
    bodyLength: complete.body.length,
    framingTail: framingTailOf('raw'),
    failedBody,
  });
}
