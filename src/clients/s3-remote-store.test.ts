// classifyRemoteError: every SDK or socket failure becomes a bounded class, and the message never carries what the
// SDK's did (an endpoint, a bucket, a key). S3RemoteStore against a faulty target: bounded time, memory and class.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultServer } from '../../test/helpers/fault-server.js';
import { RemoteError } from '../services/replication/remote-store.js';
import { MAX_LIST_RESPONSE_BODY_BYTES, MAX_RESPONSE_BODY_BYTES } from './response-cap.js';
import { classifyRemoteError, S3RemoteStore } from './s3-remote-store.js';

const sdk = (
  name: string,
  status?: number,
  message = 'https://AKIAEXAMPLE@s3.internal:9000/bucket/key failed',
): Error =>
  Object.assign(new Error(message), {
    name,
    ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }),
  });

describe('classifyRemoteError', () => {
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:9000'), { code: 'ECONNREFUSED' }), 'unreachable'],
    [
      Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'all failed'), {}),
      'unreachable',
    ],
    [sdk('TimeoutError'), 'timeout'],
    [sdk('AbortError'), 'aborted'],
    [sdk('NoSuchBucket', 404), 'no-bucket'],
    [sdk('NoSuchKey', 404), 'not-found'],
    [sdk('NotFound', 404), 'not-found'],
    [sdk('InvalidAccessKeyId', 403), 'auth'],
    [sdk('Unknown', 401), 'auth'],
    [sdk('SlowDown', 503), 'throttled'],
    [sdk('InternalError', 500), 'server-error'],
    [sdk('InvalidArgument', 400), 'client-error'],
    [new Error('something else'), 'unknown'],
  ])('maps %s to %s', (err, cls) => {
    const mapped = classifyRemoteError(err);
    expect(mapped.errorClass).toBe(cls);
    expect(mapped.message).not.toMatch(/AKIA|internal|bucket\/key|10\.1\.2\.3/);
  });
});

// Against a faulty target on loopback (test/helpers/fault-server.ts): every way a target can misbehave ends in a
// bounded class, in bounded time, with bounded memory.
describe('S3RemoteStore against a faulty target', () => {
  // Two clients of the same target: one whose deadline is short, for the faults that only a deadline ends, and one
  // whose deadline no loaded machine reaches, for the faults that must fail for their own reason (a reset, a bad
  // answer): on a busy machine a short deadline would turn those into timeouts, and the test would measure the load.
  const TIMEOUT_MS = 400;
  const PATIENT_TIMEOUT_MS = 60_000;
  let upstream: Server;
  let fault: FaultServer;
  let impatient: S3RemoteStore;
  let patient: S3RemoteStore;

  beforeAll(async () => {
    // The healthy upstream: answers every request 200 with an ETag, like S3 answers a PutObject.
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { etag: '"0123456789abcdef0123456789abcdef"', 'content-length': '0' }).end(),
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    fault = await FaultServer.start((upstream.address() as AddressInfo).port);
    const client = (requestTimeoutMs: number): S3RemoteStore =>
      new S3RemoteStore({
        bucket: 'mirror',
        accessKeyId: 'AKIAFAULTYTARGET0001',
        secretAccessKey: 'faulty-target-secret-0123456789abcdef',
        endpoint: fault.url,
        region: 'us-east-1',
        forcePathStyle: true,
        largeObjectThresholdBytes: 64 * 1024 * 1024,
        requestTimeoutMs,
      });
    impatient = client(TIMEOUT_MS);
    patient = client(PATIENT_TIMEOUT_MS);
  });
  afterAll(async () => {
    impatient.close();
    patient.close();
    await fault.close();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  /** The class a put of a few bytes ends with, and how long it took. */
  async function putOutcome(store: S3RemoteStore): Promise<{ cls: string; ms: number; message: string }> {
    const t0 = Date.now();
    try {
      await store.put({ key: 'b/k', body: Readable.from([Buffer.from('hello')]), size: 5 });
      return { cls: 'ok', ms: Date.now() - t0, message: '' };
    } catch (err) {
      expect(err).toBeInstanceOf(RemoteError);
      return { cls: (err as RemoteError).errorClass, ms: Date.now() - t0, message: (err as Error).message };
    }
  }

  it('succeeds through a healthy target (the fault server passing through)', async () => {
    await fault.setMode({ kind: 'pass' });
    expect((await putOutcome(patient)).cls).toBe('ok');
  });

  it.each([
    // A target that accepts and never answers: the idle bound (per attempt) and the deadline end it.
    [{ kind: 'hang' } as const, 'timeout'],
    // Bytes keep coming, so the socket is never idle: only the whole-request deadline ends it.
    [{ kind: 'trickle', byteEveryMs: 40 } as const, 'timeout'],
    [{ kind: 'reset' } as const, 'unreachable'],
    [{ kind: 'garbage' } as const, 'server-error'],
    // A 200 whose body never ends would otherwise be buffered whole by the SDK.
    [{ kind: 'huge-body', status: 200 } as const, 'server-error'],
    [{ kind: 'huge-body', status: 500 } as const, 'server-error'],
    // A proxy's page with 200 is not S3's answer: there is no ETag, and the object may not be stored.
    [{ kind: 'bad-body', status: 200, body: 'html' } as const, 'server-error'],
    [{ kind: 'bad-body', status: 500, body: 'broken-xml' } as const, 'server-error'],
    [{ kind: 'bad-body', status: 403, body: 'html' } as const, 'auth'],
  ])('a target in mode %j fails the put as %s, within the timeout bound', async (mode, cls) => {
    await fault.setMode(mode);
    const before = fault.stats.hugeBytesSent;
    const outcome = await putOutcome(cls === 'timeout' ? impatient : patient);
    expect(outcome.cls).toBe(cls);
    // A deadline ends it: the short one (timeout + 5 bytes at the minimum rate), with slack for a loaded machine.
    if (cls === 'timeout') expect(outcome.ms).toBeLessThan(TIMEOUT_MS + 10_000);
    expect(outcome.message).not.toMatch(/127\.0\.0\.1|AKIA|secret|mirror/);
    // At most the cap (1 MiB) per attempt, plus what sits in socket buffers.
    expect(fault.stats.hugeBytesSent - before).toBeLessThan(2 * MAX_RESPONSE_BODY_BYTES + 16 * 1024 * 1024);
  });

  it('bounds every other call the same way, and checkBucket reports the class', async () => {
    await fault.setMode({ kind: 'hang' });
    const t0 = Date.now();
    await expect(impatient.head('b/k')).rejects.toMatchObject({ errorClass: 'timeout' });
    await expect(impatient.delete('b/k')).rejects.toMatchObject({ errorClass: 'timeout' });
    await expect(impatient.list({ prefix: 'b/', limit: 10 })).rejects.toMatchObject({ errorClass: 'timeout' });
    expect(await impatient.checkBucket()).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(4 * (TIMEOUT_MS + 10_000));
    await fault.setMode({ kind: 'huge-body', status: 200 });
    const sent = fault.stats.hugeBytesSent;
    await expect(patient.list({ prefix: 'b/', limit: 10 })).rejects.toMatchObject({ errorClass: 'server-error' });
    // A list page may be larger (16 MiB), and is still capped.
    expect(fault.stats.hugeBytesSent - sent).toBeLessThan(2 * MAX_LIST_RESPONSE_BODY_BYTES + 16 * 1024 * 1024);
    await fault.setMode({ kind: 'pass' });
    expect((await putOutcome(patient)).cls).toBe('ok');
  });

  it("reports the caller's abort as aborted, not as a timeout", async () => {
    await fault.setMode({ kind: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(patient.head('b/k', controller.signal)).rejects.toMatchObject({ errorClass: 'aborted' });
  });
});
