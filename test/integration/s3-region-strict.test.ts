// STORE_REGION_STRICT: by default a signature must name STORE_REGION (as AWS); with false, any signing region is
// accepted and the signature is computed with the region the client named (git-annex signs with the host name).
// Header signatures (aws-chunked bodies included), presigned URLs and POST forms alike.

import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { beforeAll, describe, expect, it } from 'vitest';
import { formWithFile, signedPolicyFields } from '../helpers/post-form.js';
import { rawRequest } from '../helpers/signed-http.js';
import type { RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, expectS3Error } from './s3-assert.js';

const OTHER_REGION = 'localhost'; // a host name, as git-annex signs (the SDK takes no dots in a region)

function clientIn(server: RunningServer, region: string): S3Client {
  return new S3Client({
    endpoint: server.url,
    region,
    forcePathStyle: true,
    credentials: server.credentials,
    maxAttempts: 1,
  });
}

async function roundTrip(server: RunningServer, region: string, bucket: string): Promise<void> {
  const s3 = clientIn(server, region);
  try {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'header', Body: 'signed in another region' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'header' }));
    expect((await bodyBytes(got.Body)).toString()).toBe('signed in another region');
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'header' }), { expiresIn: 300 });
    const presigned = await fetch(url);
    expect(presigned.status).toBe(200);
    expect(await presigned.text()).toBe('signed in another region');
  } finally {
    s3.destroy();
  }
}

function postIn(server: RunningServer, region: string, bucket: string) {
  const fields = signedPolicyFields({
    bucket,
    region,
    accessKeyId: server.credentials.accessKeyId,
    secretAccessKey: server.credentials.secretAccessKey,
    conditions: [['starts-with', '$key', '']],
  });
  const form = formWithFile({ ...fields, key: 'form' }, { filename: 'f.txt', content: 'posted' });
  return rawRequest(server, {
    method: 'POST',
    path: `/${bucket}`,
    headers: { 'content-type': form.contentType },
    body: form.body,
  });
}

describe('STORE_REGION_STRICT unset (true): signatures name STORE_REGION', () => {
  const store = useStore();
  let server: RunningServer;
  let bucket: string;
  beforeAll(async () => {
    server = store.server;
    bucket = await store.bucket('strict');
  });

  it('refuses a header signature, a presigned URL and a POST form that name another region, naming the expected one', async () => {
    const s3 = clientIn(server, OTHER_REGION);
    try {
      const err = await expectS3Error(
        s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x' })),
        'AuthorizationHeaderMalformed',
        400,
      );
      expect((err as { Region?: string }).Region).toBe('us-east-1');
      const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'k' }), { expiresIn: 300 });
      const presigned = await fetch(url);
      expect(presigned.status).toBe(400);
      expect(await presigned.text()).toContain('<Code>AuthorizationQueryParametersError</Code>');
    } finally {
      s3.destroy();
    }
    const posted = await postIn(server, OTHER_REGION, bucket);
    expect(posted.status).toBe(400);
    expect(posted.body.toString()).toContain('<Code>InvalidArgument</Code>');
    expect(posted.body.toString()).toContain('<Region>us-east-1</Region>');
  });
});

describe('STORE_REGION_STRICT=false: any signing region', () => {
  const store = useStore({ env: { STORE_REGION_STRICT: 'false' } });
  let server: RunningServer;
  let bucket: string;
  beforeAll(async () => {
    server = store.server;
    // Made by the fixture's us-east-1 client (the SDK would send another region as the LocationConstraint).
    bucket = await store.bucket('loose');
  });

  it('accepts header signatures and presigned URLs in the host-name region and in its own', async () => {
    await roundTrip(server, OTHER_REGION, bucket);
    await roundTrip(server, 'us-east-1', bucket);
  });

  it('accepts a POST form signed in another region, and still checks the signature with that region', async () => {
    expect((await postIn(server, OTHER_REGION, bucket)).status).toBe(204);
    const s3 = clientIn(server, 'us-east-1');
    try {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'form' }));
      expect((await bodyBytes(got.Body)).toString()).toBe('posted');
    } finally {
      s3.destroy();
    }
    // Signed with one region's key, claiming another: the signature does not match.
    const fields = signedPolicyFields({
      bucket,
      region: 'eu-west-1',
      accessKeyId: server.credentials.accessKeyId,
      secretAccessKey: server.credentials.secretAccessKey,
      conditions: [['starts-with', '$key', '']],
    });
    const claimed = {
      ...fields,
      'x-amz-credential': String(fields['x-amz-credential']).replace('/eu-west-1/', `/${OTHER_REGION}/`),
    };
    const form = formWithFile({ ...claimed, key: 'forged' }, { filename: 'f.txt', content: 'x' });
    const forged = await rawRequest(server, {
      method: 'POST',
      path: `/${bucket}`,
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(forged.status).toBe(403);
    expect(forged.body.toString()).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('still refuses a wrong secret', async () => {
    const s3 = new S3Client({
      endpoint: server.url,
      region: OTHER_REGION,
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: server.credentials.accessKeyId, secretAccessKey: 'x'.repeat(40) },
    });
    try {
      await expectS3Error(
        s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'header' })),
        'SignatureDoesNotMatch',
        403,
      );
    } finally {
      s3.destroy();
    }
  });
});
