// Bucket policies enforced on the S3 plane: anonymous access only where a policy allows "*", explicit Deny beating
// the root key (which can always fix the policy), conditions on the request (prefix, IP, TLS, user agent), copy
// sources, DeleteObjects key by key, PutBucketPolicy validation and GetBucketPolicyStatus.

import {
  CopyObjectCommand,
  DeleteBucketPolicyCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketPolicyCommand,
  GetBucketPolicyStatusCommand,
  GetObjectCommand,
  PutBucketPolicyCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, expectS3Error } from './s3-assert.js';

const store = useStore();

type Statement = Record<string, unknown>;

/** A new bucket holding `objects` (each with the body `body of <key>`), without a policy. */
async function newBucket(objects: string[] = []): Promise<string> {
  const bucket = await store.bucket('pol');
  for (const key of objects)
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `body of ${key}` }));
  return bucket;
}

async function setPolicy(bucket: string, statements: Statement[]): Promise<void> {
  await store.s3.send(
    new PutBucketPolicyCommand({
      Bucket: bucket,
      Policy: JSON.stringify({ Version: '2012-10-17', Statement: statements }),
    }),
  );
}

/** An anonymous request, as a browser or curl would send it. */
async function anonymous(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; code: string | undefined; text: string }> {
  const res = await fetch(`${store.server.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, code: /<Code>([^<]*)<\/Code>/.exec(text)?.[1], text };
}

const allow = (action: string | string[], resource: string | string[], extra: Statement = {}): Statement => ({
  Effect: 'Allow',
  Principal: '*',
  Action: action,
  Resource: resource,
  ...extra,
});
const deny = (action: string | string[], resource: string | string[], extra: Statement = {}): Statement => ({
  Effect: 'Deny',
  Principal: '*',
  Action: action,
  Resource: resource,
  ...extra,
});

describe('anonymous requests', () => {
  it('are denied on a bucket without a policy, and on a bucket that does not exist (no existence leak)', async () => {
    const bucket = await newBucket(['a.txt']);
    expect(await anonymous(`/${bucket}/a.txt`)).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await anonymous(`/${bucket}`)).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await anonymous(`/${uniqueBucket('nope')}/a.txt`)).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await anonymous('/')).toMatchObject({ status: 403, code: 'AccessDenied' });
    // The root key is told the truth.
    await expectS3Error(
      store.s3.send(new GetObjectCommand({ Bucket: uniqueBucket('nope'), Key: 'a.txt' })),
      'NoSuchBucket',
      404,
    );
  });

  it('read only what a public-read policy on a prefix allows', async () => {
    const bucket = await newBucket();
    await setPolicy(bucket, [allow('s3:GetObject', `arn:aws:s3:::${bucket}/public/*`)]);
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'public/a.txt', Body: 'shared' }));
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'private/b.txt', Body: 'secret' }));
    expect(await anonymous(`/${bucket}/public/a.txt`)).toMatchObject({ status: 200, text: 'shared' });
    expect(await anonymous(`/${bucket}/private/b.txt`)).toMatchObject({ status: 403, code: 'AccessDenied' });
    // Writing and listing are not granted.
    expect(await anonymous(`/${bucket}/public/new.txt`, { method: 'PUT', body: 'x' })).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    expect(await anonymous(`/${bucket}?list-type=2`)).toMatchObject({ status: 403, code: 'AccessDenied' });
    // Without s3:ListBucket a missing key is AccessDenied, not NoSuchKey (S3 hides which keys exist).
    expect(await anonymous(`/${bucket}/public/missing.txt`)).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  it('see NoSuchKey for a missing key once the policy also allows listing', async () => {
    const bucket = await newBucket();
    await setPolicy(bucket, [
      allow('s3:GetObject', `arn:aws:s3:::${bucket}/*`),
      allow('s3:ListBucket', `arn:aws:s3:::${bucket}`),
    ]);
    expect(await anonymous(`/${bucket}/missing.txt`)).toMatchObject({ status: 404, code: 'NoSuchKey' });
  });

  it('may list only under the prefix a StringLike s3:prefix condition allows', async () => {
    const bucket = await newBucket(['docs/a', 'docs/b', 'other/c']);
    await setPolicy(bucket, [
      allow('s3:ListBucket', `arn:aws:s3:::${bucket}`, { Condition: { StringLike: { 's3:prefix': 'docs/*' } } }),
    ]);
    const listed = await anonymous(`/${bucket}?list-type=2&prefix=docs/`);
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('<Key>docs/a</Key>');
    expect(await anonymous(`/${bucket}?list-type=2`)).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await anonymous(`/${bucket}?list-type=2&prefix=other/`)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it('are allowed or refused by an IpAddress condition on the source address', async () => {
    const bucket = await newBucket(['a.txt']);
    await setPolicy(bucket, [
      allow('s3:GetObject', `arn:aws:s3:::${bucket}/*`, {
        Condition: { IpAddress: { 'aws:SourceIp': '127.0.0.0/8' } },
      }),
    ]);
    expect((await anonymous(`/${bucket}/a.txt`)).status).toBe(200);
    // The policy is re-read when it changes (the cache is keyed by its text).
    await setPolicy(bucket, [
      allow('s3:GetObject', `arn:aws:s3:::${bucket}/*`, { Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } }),
    ]);
    expect(await anonymous(`/${bucket}/a.txt`)).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  it('may upload where the policy allows s3:PutObject to "*", and only there', async () => {
    const bucket = await newBucket();
    await setPolicy(bucket, [allow('s3:PutObject', `arn:aws:s3:::${bucket}/drop/*`)]);
    expect((await anonymous(`/${bucket}/drop/a.txt`, { method: 'PUT', body: 'dropped' })).status).toBe(200);
    const out = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'drop/a.txt' }));
    expect((await bodyBytes(out.Body)).toString()).toBe('dropped');
    expect(await anonymous(`/${bucket}/elsewhere.txt`, { method: 'PUT', body: 'x' })).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it('are not covered by a statement naming an access key, nor by a Deny-only policy', async () => {
    const bucket = await newBucket(['a.txt']);
    await setPolicy(bucket, [
      {
        Effect: 'Allow',
        Principal: { AWS: store.server.credentials.accessKeyId },
        Action: 's3:GetObject',
        Resource: `arn:aws:s3:::${bucket}/*`,
      },
    ]);
    expect(await anonymous(`/${bucket}/a.txt`)).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  it('get AccessDenied rather than NotImplemented for an unimplemented subresource', async () => {
    const bucket = await newBucket();
    expect(await anonymous(`/${bucket}?inventory`)).toMatchObject({ status: 403, code: 'AccessDenied' });
    const signed = await rawRequest(store.server, { method: 'GET', path: `/${bucket}?inventory`, sign: true });
    expect({ status: signed.status, code: signed.code }).toEqual({ status: 501, code: 'NotImplemented' });
  });
});

describe('the root key', () => {
  it('is refused by an explicit Deny, and can always read, replace and delete the policy', async () => {
    const bucket = await newBucket(['a.txt']);
    await setPolicy(bucket, [deny('s3:*', [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`])]);
    await expectS3Error(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'a.txt' })), 'AccessDenied', 403);
    await expectS3Error(
      store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b.txt', Body: 'x' })),
      'AccessDenied',
      403,
    );
    const policy = await store.s3.send(new GetBucketPolicyCommand({ Bucket: bucket }));
    expect(policy.Policy).toContain('"Deny"');
    await store.s3.send(new DeleteBucketPolicyCommand({ Bucket: bucket }));
    const out = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'a.txt' }));
    expect((await bodyBytes(out.Body)).toString()).toBe('body of a.txt');
  });

  it('is refused plain HTTP by a Deny on aws:SecureTransport false (Store without a TLS proxy is plain HTTP)', async () => {
    const bucket = await newBucket(['a.txt']);
    await setPolicy(bucket, [
      deny('s3:GetObject', `arn:aws:s3:::${bucket}/*`, { Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
    await expectS3Error(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'a.txt' })), 'AccessDenied', 403);
    // Other actions are untouched.
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b.txt', Body: 'x' }));
  });

  it('is refused by a Deny conditioned on the user agent, and only for matching agents', async () => {
    const bucket = await newBucket(['a.txt']);
    await setPolicy(bucket, [
      deny('s3:GetObject', `arn:aws:s3:::${bucket}/*`, { Condition: { StringLike: { 'aws:UserAgent': '*BadBot*' } } }),
    ]);
    const bad = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/a.txt`,
      headers: { 'user-agent': 'Mozilla BadBot/1.0' },
      sign: true,
    });
    expect({ status: bad.status, code: bad.code }).toEqual({ status: 403, code: 'AccessDenied' });
    const good = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/a.txt`,
      headers: { 'user-agent': 'curl/8' },
      sign: true,
    });
    expect(good.status).toBe(200);
  });

  it('cannot copy from a source the policy denies it, though the target is allowed', async () => {
    const source = await newBucket(['secret/a.txt', 'open/b.txt']);
    await setPolicy(source, [deny('s3:GetObject', `arn:aws:s3:::${source}/secret/*`)]);
    const target = await newBucket();
    await expectS3Error(
      store.s3.send(new CopyObjectCommand({ Bucket: target, Key: 'copy.txt', CopySource: `${source}/secret/a.txt` })),
      'AccessDenied',
      403,
    );
    await store.s3.send(new CopyObjectCommand({ Bucket: target, Key: 'copy.txt', CopySource: `${source}/open/b.txt` }));
  });

  it('gets AccessDenied per key in DeleteObjects for the keys a Deny covers, and deletes the rest', async () => {
    const bucket = await newBucket(['keep/a', 'keep/b', 'tmp/c']);
    await setPolicy(bucket, [deny('s3:DeleteObject', `arn:aws:s3:::${bucket}/keep/*`)]);
    await expectS3Error(store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'keep/a' })), 'AccessDenied', 403);
    const out = await store.s3.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: [{ Key: 'keep/a' }, { Key: 'tmp/c' }, { Key: 'keep/b' }] },
      }),
    );
    expect(out.Deleted?.map((d) => d.Key)).toEqual(['tmp/c']);
    expect(out.Errors?.map((e) => [e.Key, e.Code])).toEqual([
      ['keep/a', 'AccessDenied'],
      ['keep/b', 'AccessDenied'],
    ]);
    await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'keep/a' }));
    await expectS3Error(store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'tmp/c' })), 'NoSuchKey', 404);
  });
});

describe('DeleteObjects by anonymous callers', () => {
  it('reports every key AccessDenied without a policy, and deletes the keys a policy allows', async () => {
    const bucket = await newBucket(['a', 'b']);
    const body = '<Delete><Object><Key>a</Key></Object><Object><Key>b</Key></Object></Delete>';
    const refused = await anonymous(`/${bucket}?delete`, { method: 'POST', body });
    expect(refused.status).toBe(200);
    expect(refused.text.match(/<Code>AccessDenied<\/Code>/g)).toHaveLength(2);
    await setPolicy(bucket, [allow('s3:DeleteObject', `arn:aws:s3:::${bucket}/a`)]);
    const partial = await anonymous(`/${bucket}?delete`, { method: 'POST', body });
    expect(partial.text).toContain('<Deleted><Key>a</Key></Deleted>');
    expect(partial.text).toMatch(/<Error><Key>b<\/Key><Code>AccessDenied<\/Code>/);
    // A bucket that does not exist is AccessDenied as a whole (nothing to learn from it).
    expect(await anonymous(`/${uniqueBucket('nope')}?delete`, { method: 'POST', body })).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });
});

describe('PutBucketPolicy validation and GetBucketPolicyStatus', () => {
  const malformed: [string, (bucket: string) => string][] = [
    ['invalid JSON', () => '{"Version": "2012-10-17", "Statement": ['],
    [
      'a resource in another bucket',
      () => JSON.stringify({ Statement: [allow('s3:GetObject', 'arn:aws:s3:::someone-else/*')] }),
    ],
    ['an unknown action', (b) => JSON.stringify({ Statement: [allow('s3:GetObjekt', `arn:aws:s3:::${b}/*`)] })],
    [
      'an unknown condition key',
      (b) =>
        JSON.stringify({
          Statement: [
            allow('s3:GetObject', `arn:aws:s3:::${b}/*`, { Condition: { StringEquals: { 'aws:Nonsense': 'x' } } }),
          ],
        }),
    ],
    [
      'an object action on the bucket ARN',
      (b) => JSON.stringify({ Statement: [allow('s3:GetObject', `arn:aws:s3:::${b}`)] }),
    ],
    [
      'Allow with NotPrincipal',
      (b) =>
        JSON.stringify({
          Statement: [
            {
              Effect: 'Allow',
              NotPrincipal: { AWS: '123456789012' },
              Action: 's3:GetObject',
              Resource: `arn:aws:s3:::${b}/*`,
            },
          ],
        }),
    ],
  ];
  it.each(malformed)('refuses %s with MalformedPolicy and keeps the previous policy', async (_name, policyOf) => {
    const bucket = await newBucket(['a.txt']);
    await setPolicy(bucket, [allow('s3:GetObject', `arn:aws:s3:::${bucket}/*`)]);
    await expectS3Error(
      store.s3.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: policyOf(bucket) })),
      'MalformedPolicy',
      400,
    );
    expect((await anonymous(`/${bucket}/a.txt`)).status).toBe(200);
  });

  it('reports public for an unconditioned grant to "*" and not public when limited to an address range', async () => {
    const bucket = await newBucket();
    await setPolicy(bucket, [allow('s3:GetObject', `arn:aws:s3:::${bucket}/*`)]);
    expect((await store.s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket }))).PolicyStatus?.IsPublic).toBe(
      true,
    );
    await setPolicy(bucket, [
      allow('s3:GetObject', `arn:aws:s3:::${bucket}/*`, {
        Condition: { IpAddress: { 'aws:SourceIp': '10.1.0.0/16' } },
      }),
    ]);
    expect((await store.s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket }))).PolicyStatus?.IsPublic).toBe(
      false,
    );
    await store.s3.send(new DeleteBucketPolicyCommand({ Bucket: bucket }));
    await expectS3Error(store.s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket })), 'NoSuchBucketPolicy', 404);
  });
});
