// A mixed workload against a running server, for the metrics tests: S3 writes, reads, 404s, listings, a multipart
// upload, a presigned GET with a query string, an odd method, a forwarded client address, an unparsable request,
// and admin calls (login, list, a 404 on a parameterised route, an unknown route, the console). It returns the
// distinctive strings it used, which must never appear in a metric label.

import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { presignUrl } from '../../src/sigv4/sign.js';
import { adminCall, adminLogin } from './admin-session.js';
import { sdkClient, uniqueBucket } from './clients.js';
import type { RunningServer } from './server.js';

export interface WorkloadTrace {
  bucket: string;
  /** Object keys, a missing key, a missing bucket, query values and addresses: none may become a label value. */
  forbidden: string[];
}

/** Sends bytes that are not HTTP and waits for the server to answer and close. */
async function sendGarbage(server: RunningServer): Promise<void> {
  await new Promise<void>((resolve) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write('THIS IS NOT HTTP\r\n\r\n'));
    socket.on('data', () => undefined);
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

async function expectStatus(promise: Promise<unknown>, status: number): Promise<void> {
  try {
    await promise;
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === status) return;
    throw err;
  }
  throw new Error(`expected HTTP ${status}`);
}

export async function mixedWorkload(server: RunningServer, opts: { mountPath?: string } = {}): Promise<WorkloadTrace> {
  const base = `${server.url}${opts.mountPath ?? ''}`;
  // 'q' never occurs in a number or a hex string, so the tag cannot show up in a scrape by coincidence.
  const tag = `q${randomBytes(4).toString('hex')}`;
  const bucket = uniqueBucket('metrics');
  const keys = [`zq-secret-${tag}/deep path/na\u00efve file.txt`, `plain-${tag}.bin`, `mp-${tag}/upload.dat`];
  const missingKey = `missing-${tag}.txt`;
  const missingBucket = `nobucket-${tag}`;
  const s3 = sdkClient({ ...server, url: base });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: keys[0], Body: 'hello metrics' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: keys[1], Body: randomBytes(40_000) }));
    await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: keys[0] }))).Body?.transformToString();
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: keys[1] }));
    await expectStatus(s3.send(new GetObjectCommand({ Bucket: bucket, Key: missingKey })), 404);
    await expectStatus(s3.send(new GetObjectCommand({ Bucket: missingBucket, Key: missingKey })), 404);
    await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `zq-secret-${tag}/`, Delimiter: '/' }));
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: keys[2] }));
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: keys[2],
        UploadId: upload.UploadId,
        PartNumber: 1,
        Body: 'part one',
      }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: keys[2],
        UploadId: upload.UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: keys[1] }));
  } finally {
    s3.destroy();
  }

  const presigned = presignUrl({
    method: 'GET',
    url: new URL(
      `${base}/${bucket}/${encodeURIComponent(`zq-secret-${tag}`)}/deep%20path/na%C3%AFve%20file.txt?response-content-type=text%2Fx-${tag}`,
    ),
    rawPath: `${opts.mountPath ?? ''}/${bucket}/zq-secret-${tag}/deep%20path/na%C3%AFve%20file.txt`,
    accessKeyId: server.credentials.accessKeyId,
    secretAccessKey: server.credentials.secretAccessKey,
    region: 'us-east-1',
    expiresSeconds: 300,
  });
  await (await fetch(presigned)).arrayBuffer();
  await (
    await fetch(`${base}/${bucket}/${missingKey}?query-${tag}=1`, {
      method: 'PROPFIND',
      headers: { 'x-forwarded-for': '203.0.113.77' },
    })
  ).arrayBuffer();
  await (
    await fetch(`${base}/${bucket}?list-type=2&prefix=zq-secret-${tag}`, {
      headers: { 'x-forwarded-for': '203.0.113.77' },
    })
  ).arrayBuffer();
  await sendGarbage(server);

  const admin = { ...server, url: base };
  const token = await adminLogin(admin);
  await adminCall(admin, token, { method: 'GET', path: '/keys' });
  await adminCall(admin, token, { method: 'GET', path: `/keys/AKIDNOPE${tag.toUpperCase()}000` });
  await adminCall(admin, token, { method: 'GET', path: `/nope-${tag}?q=${tag}` });
  await adminCall(admin, undefined, { method: 'GET', path: '/keys' });
  await (await fetch(`${base}/admin/console-${tag}.html`)).arrayBuffer();

  return {
    bucket,
    forbidden: [
      ...keys,
      `zq-secret-${tag}`,
      `plain-${tag}`,
      `mp-${tag}`,
      missingKey,
      missingBucket,
      tag,
      tag.toUpperCase(),
      '127.0.0.1',
      '203.0.113.77',
      '?',
      '=',
    ],
  };
}
