// The error codes clients key on, as AWS answers them: a part number beyond the object's parts (416
// InvalidPartNumber), object lock retention periods (InvalidArgument naming the argument, MalformedXML for Days and
// Years together), an empty continuation token, and a bad x-amz-copy-source-range on UploadPartCopy (400
// InvalidArgument for the syntax and for a range past the source's end, as AWS answers, not GET's 416).

import { createHash } from 'node:crypto';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { rawRequest, type RawResponse } from '../helpers/signed-http.js';

const store = useStore({ tmpfs: true });
let bucket: string;
let locked: string;
const MiB = 1024 * 1024;

beforeAll(async () => {
  bucket = uniqueBucket('err');
  locked = uniqueBucket('errlock');
  await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await store.s3.send(new CreateBucketCommand({ Bucket: locked, ObjectLockEnabledForBucket: true }));
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'single', Body: 'single part body' }));
  const { UploadId } = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'two-parts' }));
  const bodies = [Buffer.alloc(5 * MiB, 1), Buffer.from('tail')];
  const parts = [];
  for (const [i, body] of bodies.entries()) {
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'two-parts', UploadId, PartNumber: i + 1, Body: body }),
    );
    parts.push({ PartNumber: i + 1, ETag: part.ETag });
  }
  await store.s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: bucket,
      Key: 'two-parts',
      UploadId,
      MultipartUpload: { Parts: parts },
    }),
  );
});

const signed = (
  method: string,
  path: string,
  extra: { headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> => rawRequest(store.server, { method, path, sign: true, ...extra });

function expectError(
  res: RawResponse,
  { status, code }: { status: number; code: string },
  details: Record<string, string> = {},
): void {
  expect({ status: res.status, code: res.code }).toEqual({ status, code });
  for (const [name, value] of Object.entries(details)) expect(res.text).toContain(`<${name}>${value}</${name}>`);
}

describe('partNumber beyond the parts of the object', () => {
  it('GET and HEAD answer 416 InvalidPartNumber, for a multipart and a single-part object', async () => {
    expect((await signed('GET', `/${bucket}/two-parts?partNumber=2`)).status).toBe(206);
    expectError(await signed('GET', `/${bucket}/two-parts?partNumber=3`), { status: 416, code: 'InvalidPartNumber' });
    expect((await signed('HEAD', `/${bucket}/two-parts?partNumber=3`)).status).toBe(416);
    expectError(await signed('GET', `/${bucket}/single?partNumber=2`), { status: 416, code: 'InvalidPartNumber' });
    expect((await signed('HEAD', `/${bucket}/single?partNumber=2`)).status).toBe(416);
  });

  it('a part number outside 1..10000 is 400 InvalidArgument', async () => {
    expectError(
      await signed('GET', `/${bucket}/two-parts?partNumber=0`),
      { status: 400, code: 'InvalidArgument' },
      { ArgumentName: 'partNumber' },
    );
    expectError(
      await signed('GET', `/${bucket}/two-parts?partNumber=10001`),
      { status: 400, code: 'InvalidArgument' },
      { ArgumentName: 'partNumber' },
    );
  });
});

describe('object lock retention periods', () => {
  const past = '2020-01-01T00:00:00.000Z';
  const lockHeaders = { 'x-amz-object-lock-mode': 'GOVERNANCE', 'x-amz-object-lock-retain-until-date': past };
  const header = 'x-amz-object-lock-retain-until-date';

  it('a retain-until date in the past on PutObject or CreateMultipartUpload is InvalidArgument naming the header and value', async () => {
    const put = await signed('PUT', `/${locked}/past`, {
      headers: { ...lockHeaders, 'content-md5': createHash('md5').update('x').digest('base64') },
      body: 'x',
    });
    expectError(put, { status: 400, code: 'InvalidArgument' }, { ArgumentName: header, ArgumentValue: past });
    const create = await signed('POST', `/${locked}/past-mp?uploads`, { headers: lockHeaders });
    expectError(create, { status: 400, code: 'InvalidArgument' }, { ArgumentName: header, ArgumentValue: past });
  });

  it('a retain-until date in the past on PutObjectRetention is InvalidArgument', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: locked, Key: 'kept', Body: 'x' }));
    const body = `<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>${past}</RetainUntilDate></Retention>`;
    expectError(await signed('PUT', `/${locked}/kept?retention`, { body }), { status: 400, code: 'InvalidArgument' });
  });

  it('a bucket default retention of Days or Years <= 0 is InvalidArgument naming it; both together are MalformedXML', async () => {
    const config = (rule: string): string =>
      `<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>GOVERNANCE</Mode>${rule}` +
      '</DefaultRetention></Rule></ObjectLockConfiguration>';
    const put = (rule: string): Promise<RawResponse> => signed('PUT', `/${locked}?object-lock`, { body: config(rule) });
    expectError(await put('<Days>0</Days>'), { status: 400, code: 'InvalidArgument' }, { ArgumentName: 'Days' });
    expectError(await put('<Days>-1</Days>'), { status: 400, code: 'InvalidArgument' }, { ArgumentName: 'Days' });
    expectError(await put('<Years>0</Years>'), { status: 400, code: 'InvalidArgument' }, { ArgumentName: 'Years' });
    expectError(await put('<Years>-1</Years>'), { status: 400, code: 'InvalidArgument' }, { ArgumentName: 'Years' });
    expectError(await put('<Days>1</Days><Years>1</Years>'), { status: 400, code: 'MalformedXML' });
  });
});

describe('ListObjectsV2 continuation-token', () => {
  it('an empty token is 400 InvalidArgument', async () => {
    expectError(
      await signed('GET', `/${bucket}?list-type=2&continuation-token=`),
      { status: 400, code: 'InvalidArgument' },
      { ArgumentName: 'continuation-token' },
    );
    expectError(
      await signed('GET', `/${bucket}?list-type=2&continuation-token`),
      { status: 400, code: 'InvalidArgument' },
      { ArgumentName: 'continuation-token' },
    );
  });
});

describe('UploadPartCopy with a bad x-amz-copy-source-range', () => {
  it('is 400 InvalidArgument for a malformed range and for one past the end of the source', async () => {
    const { UploadId } = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'copy-target' }));
    const copy = (range: string): Promise<RawResponse> =>
      signed('PUT', `/${bucket}/copy-target?partNumber=1&uploadId=${UploadId}`, {
        headers: { 'x-amz-copy-source': `/${bucket}/single`, 'x-amz-copy-source-range': range },
      });
    const argument = { ArgumentName: 'x-amz-copy-source-range' };
    for (const bad of ['bytes=abc-def', 'bytes=0-', 'bytes=-5', 'bytes=5-2', '0-5', 'bytes=0-1,3-4']) {
      expectError(await copy(bad), { status: 400, code: 'InvalidArgument' }, { ...argument, ArgumentValue: bad });
    }
    const beyond = await copy('bytes=0-16');
    expectError(beyond, { status: 400, code: 'InvalidArgument' }, argument);
    expect(beyond.text).toContain('Range specified is not valid for source object of size: 16');
    expect((await copy('bytes=0-15')).status).toBe(200);
  });
});
