// The admin API's upload routes as the hostile harness sends them: PUT /buckets/{bucket}/objects/content (the raw
// body, with Content-Length or without it in the chunked transfer coding) and the admin multipart upload (start, a
// raw part, complete or abort), with a Bearer token from each of many client addresses (X-Forwarded-For, trusted).

import { deliveryFor, drawUploadFault, earlyFor, NO_FAULT, WITH_BODY, type Fault } from './faults.js';
import { httpChunked } from './http-framing.js';
import { hash, makeBody } from './model.js';
import type { Answer, Call, OpContext } from './op-context.js';
import { framingTailOf, settle } from './op-helpers.js';
import { bodySize, forwardedFor, writeTarget, type PlanItem } from './plan.js';
import type { WireRequest } from './raw-client.js';
import { FAULT_RATE } from './write-ops.js';

/** An admin request: JSON (`json`), or raw bytes with Content-Length or chunked (`raw`). */
function adminWire(
  ctx: OpContext,
  item: PlanItem,
  req: { method: string; path: string; json?: unknown; raw?: { body: Buffer; chunked: boolean } },
): WireRequest {
  const headers: [string, string][] = [
    ['host', `127.0.0.1:${ctx.server.port}`],
    ['authorization', `Bearer ${ctx.run.token}`],
    ['x-forwarded-for', forwardedFor(item)],
  ];
  let body: Buffer = Buffer.alloc(0);
  if (req.json !== undefined) {
    body = Buffer.from(JSON.stringify(req.json));
    headers.push(['content-type', 'application/json'], ['content-length', String(body.length)]);
  } else if (req.raw) {
    body = req.raw.chunked ? httpChunked(req.raw.body, item.rng) : req.raw.body;
    headers.push(
      ['content-type', 'application/octet-stream'],
      req.raw.chunked ? ['transfer-encoding', 'chunked'] : ['content-length', String(body.length)],
    );
  } else if (req.method !== 'GET' && req.method !== 'DELETE') {
    headers.push(['content-length', '0']);
  }
  return { method: req.method, path: `/api/admin${req.path}`, headers, body };
}

const q = (params: Record<string, string | number>): string =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

export async function adminUpload(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const target = writeTarget(item, run.buckets, 'admin');
  const size = bodySize(item);
  const { spec, bytes } = makeBody(run.seed, [{ id: `admin:${item.index}`, size }]);
  const kind = drawUploadFault(item, { shape: WITH_BODY, rate: FAULT_RATE, size });
  const fault: Fault = { kind, early: earlyFor(item, kind, ['missing-bucket']) };
  const bucket = fault.early === 'missing-bucket' ? run.buckets.missing : target.bucket;
  // A burst is mostly of unknown size: the reserve cannot count what it is not told.
  const chunked = item.phase === 'burst' || rng.chance(0.4);
  const wire = adminWire(ctx, item, {
    method: 'PUT',
    path: `/buckets/${bucket}/objects/content?${q({ key: target.key })}`,
    raw: { body: bytes, chunked },
  });
  const delivery = deliveryFor(kind, wire.body, rng);
  const attempt = fault.early
    ? undefined
    : run.ledger.begin({ bucket, key: target.key, bodies: [spec], via: `AdminUpload ${kind}` });
  const answer = await ctx.send(
    { op: chunked ? 'AdminUpload:chunked' : 'AdminUpload', fault, wire, delivery, kind: 'object-write', bytes: size },
    item,
  );
  settle(attempt, answer, {
    delivery,
    bodyLength: wire.body.length,
    framingTail: framingTailOf(chunked ? 'http-chunked' : 'raw'),
  });
}

export async function adminMultipart(item: PlanItem, ctx: OpContext): Promise<void> {
  const { rng } = item;
  const run = ctx.run;
  const target = writeTarget(item, run.buckets, 'amp');
  const size = bodySize(item);
  const { spec, bytes } = makeBody(run.seed, [{ id: `amp:${item.index}`, size }]);
  const send = (call: Call): Promise<Answer> => ctx.send(call, item);
  const start = adminWire(ctx, item, {
    method: 'POST',
    path: `/buckets/${target.bucket}/uploads`,
    json: { key: target.key },
  });
  const started = await send({ op: 'AdminMultipart:start', fault: NO_FAULT, wire: start, kind: 'metadata' });
  const uploadId =
    started.status === 201
      ? (JSON.parse(started.response?.body.toString('utf8') ?? '{}') as { uploadId?: string }).uploadId
      : undefined;
  if (uploadId === undefined) return;

  const kind = drawUploadFault(item, { shape: WITH_BODY, rate: FAULT_RATE, size });
  const fault: Fault = { kind, early: earlyFor(item, kind, ['missing-upload']) };
  const chunked = rng.chance(0.4);
  const partQuery = q({
    key: target.key,
    uploadId: fault.early === 'missing-upload' ? `${uploadId}x` : uploadId,
    partNumber: 1,
  });
  const part = adminWire(ctx, item, {
    method: 'PUT',
    path: `/buckets/${target.bucket}/uploads/part?${partQuery}`,
    raw: { body: bytes, chunked },
  });
  await send({
    op: chunked ? 'AdminMultipart:part-chunked' : 'AdminMultipart:part',
    fault,
    wire: part,
    kind: 'object-write',
    bytes: size,
  });

  if (rng.chance(0.15)) {
    const abort = adminWire(ctx, item, {
      method: 'DELETE',
      path: `/buckets/${target.bucket}/uploads?${q({ key: target.key, uploadId })}`,
    });
    await send({ op: 'AdminMultipart:abort', fault: NO_FAULT, wire: abort, kind: 'metadata' });
    return;
  }
  const complete = adminWire(ctx, item, {
    method: 'POST',
    path: `/buckets/${target.bucket}/uploads/complete`,
    json: { key: target.key, uploadId, parts: [{ partNumber: 1, etag: hash('md5', bytes) }] },
  });
  const attempt = run.ledger.begin({
    bucket: target.bucket,
    key: target.key,
    bodies: [spec],
    via: `AdminMultipart complete after part ${kind}`,
  });
  const delivery = deliveryFor('none', complete.body, rng);
  const answer = await send({
    op: 'AdminMultipart:complete',
    fault: NO_FAULT,
    wire: complete,
    delivery,
    kind: 'object-write',
    bytes: 0,
  });
  settle(attempt, answer, { delivery, bodyLength: complete.body.length, framingTail: 0 });
}
