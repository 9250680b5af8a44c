/* eslint-disable max-lines -- one server fixture and form signer for the whole POST Object contract */
// POST Object (HTML form uploads): signed policies with their conditions, success_action_status / redirect,
// ${filename}, content-length-range enforced while the file streams, and every way a form can be refused.

import {
  CreateBucketCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  PutBucketPolicyCommand,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import {
  formWithFile,
  multipartBody,
  signedPolicyFields,
  signPolicy,
  type PolicyOptions,
} from '../helpers/post-form.js';
import { rawRequest, type RawResponse } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes, expectS3Error, expectSameBytes, md5Hex } from './s3-assert.js';

const store = useStore();
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('post');
});

function policy(conditions: unknown[], extra: Partial<PolicyOptions> = {}): Record<string, string> {
  return signedPolicyFields({
    bucket,
    accessKeyId: store.server.credentials.accessKeyId,
    secretAccessKey: store.server.credentials.secretAccessKey,
    conditions,
    ...extra,
  });
}

function post(form: { body: Buffer; contentType: string }, target = bucket): Promise<RawResponse> {
  return rawRequest(store.server, {
    method: 'POST',
    path: `/${target}`,
    headers: { 'content-type': form.contentType },
    body: form.body,
  });
}

async function stored(key: string): Promise<Buffer | undefined> {
  try {
    return await bodyBytes((await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body);
  } catch {
    return undefined;
  }
}

const denied = (res: RawResponse): unknown => ({ status: res.status, code: res.code });

/** The response body with XML's quote escapes undone (messages quote policy conditions and field names). */
const text = (res: RawResponse): string => res.text.replaceAll('&quot;', '"').replaceAll('&apos;', "'");

describe('a valid signed form', () => {
  it('stores the file with its key, Content-Type and metadata, and answers 204 with ETag and Location', async () => {
    const content = randomBytes(5000);
    const fields = {
      key: 'forms/a.bin',
      'Content-Type': 'image/png',
      'x-amz-meta-color': 'blue',
      ...policy([
        ['eq', '$key', 'forms/a.bin'],
        ['starts-with', '$Content-Type', 'image/'],
        ['eq', '$x-amz-meta-color', 'blue'],
      ]),
    };
    const res = await post(formWithFile(fields, { filename: 'a.bin', content }));
    expect(res.status).toBe(204);
    expect(res.headers.etag).toBe(`"${md5Hex(content)}"`);
    expect(res.headers.location).toBe(`${store.server.url}/${bucket}/forms/a.bin`);
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'forms/a.bin' }));
    expect({ type: head.ContentType, meta: head.Metadata }).toEqual({ type: 'image/png', meta: { color: 'blue' } });
    expectSameBytes((await stored('forms/a.bin')) as Buffer, content);
  });

  it('answers 201 with a PostResponse document, or 200 with no body, as success_action_status asks', async () => {
    const created = await post(
      formWithFile(
        {
          key: 'forms/201.txt',
          success_action_status: '201',
          ...policy([{ key: 'forms/201.txt' }, { success_action_status: '201' }]),
        },
        { filename: 'x.txt', content: 'created' },
      ),
    );
    expect(created.status).toBe(201);
    expect(text(created)).toContain(`<Bucket>${bucket}</Bucket>`);
    expect(text(created)).toContain('<Key>forms/201.txt</Key>');
    expect(text(created)).toContain(`<ETag>"${md5Hex(Buffer.from('created'))}"</ETag>`);
    expect(text(created)).toContain(`<Location>${store.server.url}/${bucket}/forms/201.txt</Location>`);
    const ok = await post(
      formWithFile(
        {
          key: 'forms/200.txt',
          success_action_status: '200',
          ...policy([{ key: 'forms/200.txt' }, { success_action_status: '200' }]),
        },
        { filename: 'x.txt', content: 'ok' },
      ),
    );
    expect({ status: ok.status, length: ok.body.length }).toEqual({ status: 200, length: 0 });
  });

  it('redirects with 303 to success_action_redirect, adding bucket, key and etag', async () => {
    const res = await post(
      formWithFile(
        {
          key: 'forms/redirect.txt',
          success_action_redirect: 'https://app.example.com/done?from=form',
          ...policy([
            { key: 'forms/redirect.txt' },
            ['starts-with', '$success_action_redirect', 'https://app.example.com/'],
          ]),
        },
        { filename: 'x.txt', content: 'redirected' },
      ),
    );
    expect(res.status).toBe(303);
    const location = new URL(res.headers.location as string);
    expect(location.origin + location.pathname).toBe('https://app.example.com/done');
    expect(Object.fromEntries(location.searchParams)).toEqual({
      from: 'form',
      bucket,
      key: 'forms/redirect.txt',
      etag: `"${md5Hex(Buffer.from('redirected'))}"`,
    });
  });

  it('substitutes ${filename} in the key, and checks the policy against the substituted key', async () => {
    const fields = { key: 'uploads/${filename}', ...policy([['starts-with', '$key', 'uploads/']]) };
    const res = await post(formWithFile(fields, { filename: 'photo.jpg', content: 'jpeg bytes' }));
    expect(res.status).toBe(204);
    expect((await stored('uploads/photo.jpg'))?.toString()).toBe('jpeg bytes');
    const exact = { key: 'uploads/${filename}', ...policy([['eq', '$key', 'uploads/${filename}']]) };
    expect(denied(await post(formWithFile(exact, { filename: 'b.jpg', content: 'x' })))).toEqual({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it("stores a tagging field as the object's tags", async () => {
    const tagging = '<Tagging><TagSet><Tag><Key>team</Key><Value>web</Value></Tag></TagSet></Tagging>';
    const res = await post(
      formWithFile(
        { key: 'forms/tagged.txt', tagging, ...policy([{ key: 'forms/tagged.txt' }, { tagging }]) },
        { filename: 'x.txt', content: 'tagged' },
      ),
    );
    expect(res.status).toBe(204);
    const tags = await store.s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: 'forms/tagged.txt' }));
    expect(tags.TagSet).toEqual([{ Key: 'team', Value: 'web' }]);
  });

  it('streams a large file within content-length-range', async () => {
    const content = randomBytes(6 * 1024 * 1024 + 123);
    const fields = {
      key: 'forms/large.bin',
      ...policy([{ key: 'forms/large.bin' }, ['content-length-range', 1, 8 * 1024 * 1024]]),
    };
    const res = await post(formWithFile(fields, { filename: 'large.bin', content }));
    expect(res.status).toBe(204);
    expectSameBytes((await stored('forms/large.bin')) as Buffer, content);
  });

  it('ignores fields after the file', async () => {
    const fields = { key: 'forms/late.txt', ...policy([{ key: 'forms/late.txt' }]) };
    const form = multipartBody([
      ...Object.entries(fields).map(([name, value]) => ({ name, value })),
      { name: 'file', filename: 'x.txt', content: 'on time' },
      { name: 'x-amz-meta-late', value: 'not covered by the policy, and ignored' },
    ]);
    expect((await post(form)).status).toBe(204);
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'forms/late.txt' }));
    expect(head.Metadata).toEqual({});
  });
});

describe('policy checks', () => {
  it.each([
    [
      'a key outside the starts-with prefix',
      { key: 'elsewhere/x.txt' },
      [['starts-with', '$key', 'forms/']],
      /Policy Condition failed: \["starts-with", "\$key", "forms\/"\]/,
    ],
    ['a key differing from eq', { key: 'forms/other.txt' }, [['eq', '$key', 'forms/x.txt']], /Policy Condition failed/],
    [
      'a field no condition names',
      { key: 'forms/x.txt', 'x-amz-meta-color': 'red' },
      [{ key: 'forms/x.txt' }],
      /Extra input fields: x-amz-meta-color/,
    ],
    [
      'a Content-Type outside the allowed prefix',
      { key: 'forms/x.txt', 'Content-Type': 'text/html' },
      [{ key: 'forms/x.txt' }, ['starts-with', '$Content-Type', 'image/']],
      /Policy Condition failed/,
    ],
    [
      'starts-with on an exact-only field',
      { key: 'forms/x.txt', success_action_status: '201' },
      [{ key: 'forms/x.txt' }, ['starts-with', '$success_action_status', '']],
      /Policy Condition failed/,
    ],
    [
      'an unknown operator',
      { key: 'forms/x.txt' },
      [{ key: 'forms/x.txt' }, ['ends-with', '$key', '.txt']],
      /Policy Condition failed/,
    ],
  ])(
    'refuses %s with 403 AccessDenied "Invalid according to Policy"',
    // eslint-disable-next-line max-params -- it.each passes one argument per table column
    async (_name, extraFields, conditions, message) => {
      const res = await post(
        formWithFile({ ...extraFields, ...policy(conditions) }, { filename: 'x.txt', content: 'x' }),
      );
      expect(denied(res)).toEqual({ status: 403, code: 'AccessDenied' });
      expect(text(res)).toMatch(message);
      expect(await stored((extraFields as { key: string }).key)).toBeUndefined();
    },
  );

  it('refuses a policy without a bucket condition (the bucket is a field too)', async () => {
    const res = await post(
      formWithFile(
        { key: 'forms/x.txt', ...policy([{ key: 'forms/x.txt' }], { omitBucketCondition: true }) },
        { filename: 'x', content: 'x' },
      ),
    );
    expect(denied(res)).toEqual({ status: 403, code: 'AccessDenied' });
    expect(text(res)).toContain('Extra input fields: bucket');
  });

  it('refuses a policy naming another bucket', async () => {
    const res = await post(
      formWithFile(
        { key: 'x.txt', ...policy([{ key: 'x.txt' }], { bucket: 'another-bucket' }) },
        { filename: 'x', content: 'x' },
      ),
    );
    expect(denied(res)).toEqual({ status: 403, code: 'AccessDenied' });
  });

  it('refuses an expired policy', async () => {
    const past = new Date(Date.now() - 60_000);
    const res = await post(
      formWithFile(
        { key: 'forms/x.txt', ...policy([{ key: 'forms/x.txt' }], { expiration: past }) },
        { filename: 'x', content: 'x' },
      ),
    );
    expect(denied(res)).toEqual({ status: 403, code: 'AccessDenied' });
    expect(text(res)).toContain('Policy expired');
  });

  it('refuses a file over content-length-range with EntityTooLarge and one under it with EntityTooSmall, storing neither', async () => {
    const big = await post(
      formWithFile(
        { key: 'forms/big.bin', ...policy([{ key: 'forms/big.bin' }, ['content-length-range', 0, 1024 * 1024]]) },
        { filename: 'big.bin', content: randomBytes(3 * 1024 * 1024) },
      ),
    );
    expect({ status: big.status, code: big.code }).toEqual({ status: 400, code: 'EntityTooLarge' });
    const small = await post(
      formWithFile(
        { key: 'forms/small.bin', ...policy([{ key: 'forms/small.bin' }, ['content-length-range', 10, 100]]) },
        { filename: 'small.bin', content: 'tiny' },
      ),
    );
    expect({ status: small.status, code: small.code }).toEqual({ status: 400, code: 'EntityTooSmall' });
    expect(await stored('forms/big.bin')).toBeUndefined();
    expect(await stored('forms/small.bin')).toBeUndefined();
  });

  it('refuses a signed policy that is not a valid document with InvalidPolicyDocument', async () => {
    const amzDate = signedPolicyFields({ bucket, accessKeyId: 'x', secretAccessKey: 'y' })['x-amz-date'] as string;
    const credential = `${store.server.credentials.accessKeyId}/${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request`;
    for (const document of ['not json', '{"conditions": []}', '{"expiration": "tomorrow", "conditions": []}']) {
      const fields = signPolicy(Buffer.from(document).toString('base64'), {
        secretAccessKey: store.server.credentials.secretAccessKey,
        region: 'us-east-1',
        amzDate,
        credential,
      });
      const res = await post(formWithFile({ key: 'forms/x.txt', ...fields }, { filename: 'x', content: 'x' }));
      expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'InvalidPolicyDocument' });
    }
  });
});

describe('authentication', () => {
  it('refuses a signature made with the wrong secret, and a policy changed after signing', async () => {
    const wrong = policy([{ key: 'forms/x.txt' }], { secretAccessKey: 'not-the-secret' });
    const res = await post(formWithFile({ key: 'forms/x.txt', ...wrong }, { filename: 'x', content: 'x' }));
    expect(denied(res)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    const fields = policy([['starts-with', '$key', 'forms/']]);
    const widened = Buffer.from(
      Buffer.from(fields.policy as string, 'base64')
        .toString()
        .replace('"forms/"', '""'),
    ).toString('base64');
    const tampered = await post(
      formWithFile({ key: 'anything.txt', ...fields, policy: widened }, { filename: 'x', content: 'x' }),
    );
    expect(denied(tampered)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('refuses an unknown access key with InvalidAccessKeyId', async () => {
    const res = await post(
      formWithFile(
        { key: 'forms/x.txt', ...policy([{ key: 'forms/x.txt' }], { accessKeyId: 'AKIDUNKNOWN' }) },
        { filename: 'x', content: 'x' },
      ),
    );
    expect(denied(res)).toEqual({ status: 403, code: 'InvalidAccessKeyId' });
  });

  it('refuses an anonymous form unless the bucket policy lets "*" put objects there', async () => {
    const open = uniqueBucket('postanon');
    await store.s3.send(new CreateBucketCommand({ Bucket: open }));
    const form = () => formWithFile({ key: 'inbox/anon.txt' }, { filename: 'x.txt', content: 'from anyone' });
    expect(denied(await post(form(), open))).toEqual({ status: 403, code: 'AccessDenied' });
    await store.s3.send(
      new PutBucketPolicyCommand({
        Bucket: open,
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: '*', Action: 's3:PutObject', Resource: `arn:aws:s3:::${open}/inbox/*` },
          ],
        }),
      }),
    );
    expect((await post(form(), open)).status).toBe(204);
    const out = await store.s3.send(new GetObjectCommand({ Bucket: open, Key: 'inbox/anon.txt' }));
    expect((await bodyBytes(out.Body)).toString()).toBe('from anyone');
    const outside = formWithFile({ key: 'elsewhere.txt' }, { filename: 'x.txt', content: 'x' });
    expect(denied(await post(outside, open))).toEqual({ status: 403, code: 'AccessDenied' });
    // A policy field without a signature is refused.
    const unsigned = formWithFile({ key: 'inbox/b.txt', policy: 'e30=' }, { filename: 'x.txt', content: 'x' });
    expect(denied(await post(unsigned, open))).toEqual({ status: 403, code: 'AccessDenied' });
    // Anonymous callers learn nothing about buckets that do not exist.
    expect(denied(await post(form(), uniqueBucket('nope')))).toEqual({ status: 403, code: 'AccessDenied' });
  });

  it('refuses a signed form when the bucket policy denies the key PutObject', async () => {
    const locked = uniqueBucket('postdeny');
    await store.s3.send(new CreateBucketCommand({ Bucket: locked }));
    await store.s3.send(
      new PutBucketPolicyCommand({
        Bucket: locked,
        Policy: JSON.stringify({
          Statement: [{ Effect: 'Deny', Principal: '*', Action: 's3:PutObject', Resource: `arn:aws:s3:::${locked}/*` }],
        }),
      }),
    );
    const fields = { key: 'x.txt', ...policy([{ key: 'x.txt' }], { bucket: locked }) };
    expect(denied(await post(formWithFile(fields, { filename: 'x', content: 'x' }), locked))).toEqual({
      status: 403,
      code: 'AccessDenied',
    });
  });
});

describe('malformed forms', () => {
  it('answers 412 PreconditionFailed for a body that is not multipart/form-data', async () => {
    const res = await rawRequest(store.server, {
      method: 'POST',
      path: `/${bucket}`,
      headers: { 'content-type': 'text/plain' },
      body: 'key=x',
    });
    expect({ status: res.status, code: res.code }).toEqual({ status: 412, code: 'PreconditionFailed' });
    expect(text(res)).toContain('enclosure-type multipart/form-data');
    const noBoundary = await rawRequest(store.server, {
      method: 'POST',
      path: `/${bucket}`,
      headers: { 'content-type': 'multipart/form-data' },
      body: 'x',
    });
    expect({ status: noBoundary.status, code: noBoundary.code }).toEqual({ status: 400, code: 'MalformedPOSTRequest' });
  });

  it('answers MalformedPOSTRequest for a multipart body that breaks off', async () => {
    const form = formWithFile(
      { key: 'forms/cut.txt', ...policy([{ key: 'forms/cut.txt' }]) },
      { filename: 'x', content: randomBytes(200_000) },
    );
    const res = await post({ body: form.body.subarray(0, form.body.length - 30), contentType: form.contentType });
    expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'MalformedPOSTRequest' });
    expect(await stored('forms/cut.txt')).toBeUndefined();
  });

  it('survives small forms that break off right after the file starts, before the handler reads the file', async () => {
    for (let i = 0; i < 10; i++) {
      const key = `forms/broken-${i}.txt`;
      const form = formWithFile({ key, ...policy([{ key }]) }, { filename: 'x', content: 'a small file' });
      // Everything up to the file's first bytes, then the end of the body: the form fails while the upload is
      // still being checked (policy, free space), before anything reads the file stream.
      const cut = form.body.indexOf('a small file') + 4;
      const res = await post({ body: form.body.subarray(0, cut), contentType: form.contentType });
      expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'MalformedPOSTRequest' });
    }
    expect(store.server.process.exitCode).toBeNull();
    expect(
      (
        await post(
          formWithFile({ key: 'forms/ok.txt', ...policy([{ key: 'forms/ok.txt' }]) }, { filename: 'x', content: 'ok' }),
        )
      ).status,
    ).toBe(204);
  });

  it('answers InvalidArgument without a key, without a file, or with the key after the file', async () => {
    const noKey = await post(formWithFile(policy([]), { filename: 'x', content: 'x' }));
    expect({ status: noKey.status, code: noKey.code }).toEqual({ status: 400, code: 'InvalidArgument' });
    expect(text(noKey)).toContain("must contain a field named 'key'");
    const noFile = await post(multipartBody([{ name: 'key', value: 'forms/x.txt' }]));
    expect({ status: noFile.status, code: noFile.code }).toEqual({ status: 400, code: 'InvalidArgument' });
    expect(text(noFile)).toContain('exactly one file');
    const late = await post(
      multipartBody([
        { name: 'file', filename: 'x', content: 'x' },
        { name: 'key', value: 'forms/x.txt' },
      ]),
    );
    expect({ status: late.status, code: late.code }).toEqual({ status: 400, code: 'InvalidArgument' });
  });

  it('answers MaxPostPreDataLengthExceededError for oversized fields before the file', async () => {
    const res = await post(
      formWithFile({ key: 'forms/x.txt', 'x-ignore-padding': 'p'.repeat(70 * 1024) }, { filename: 'x', content: 'x' }),
    );
    expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'MaxPostPreDataLengthExceededError' });
  });

  it('refuses ACLs that grant access to others and encryption other than AES256', async () => {
    const acl = await post(
      formWithFile(
        { key: 'forms/acl.txt', acl: 'public-read', ...policy([{ key: 'forms/acl.txt' }, { acl: 'public-read' }]) },
        { filename: 'x', content: 'x' },
      ),
    );
    expect({ status: acl.status, code: acl.code }).toEqual({ status: 400, code: 'AccessControlListNotSupported' });
    const kms = await post(
      formWithFile(
        {
          key: 'forms/kms.txt',
          'x-amz-server-side-encryption': 'aws:kms',
          ...policy([{ key: 'forms/kms.txt' }, { 'x-amz-server-side-encryption': 'aws:kms' }]),
        },
        { filename: 'x', content: 'x' },
      ),
    );
    expect({ status: kms.status, code: kms.code }).toEqual({ status: 501, code: 'NotImplemented' });
    await expectS3Error(
      store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'forms/acl.txt' })),
      'NotFound',
      404,
    );
  });
});

describe('robustness', () => {
  it('discards a file whose client goes away mid-upload, and keeps serving', async () => {
    const form = formWithFile(
      { key: 'forms/abandoned.bin', ...policy([{ key: 'forms/abandoned.bin' }]) },
      { filename: 'a', content: randomBytes(4 * 1024 * 1024) },
    );
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port: store.server.port,
        method: 'POST',
        path: `/${bucket}`,
        headers: { 'content-type': form.contentType, 'content-length': String(form.body.length) },
      });
      req.on('error', () => resolve());
      req.write(form.body.subarray(0, 1024 * 1024), () =>
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100),
      );
    });
    for (let i = 0; i < 50 && readdirSync(join(store.server.dataDir, 'tmp')).length > 0; i++) await sleep(20);
    expect(readdirSync(join(store.server.dataDir, 'tmp'))).toEqual([]);
    expect(await stored('forms/abandoned.bin')).toBeUndefined();
    const after = await post(
      formWithFile(
        { key: 'forms/after.txt', ...policy([{ key: 'forms/after.txt' }]) },
        { filename: 'x', content: 'still here' },
      ),
    );
    expect(after.status).toBe(204);
  });

  it('stores nothing when the file arrived whole but the request was cut before its end (the client was never answered)', async () => {
    const key = 'forms/cut-after-file.bin';
    const form = formWithFile({ key, ...policy([{ key }]) }, { filename: 'a', content: randomBytes(2 * 1024 * 1024) });
    // Everything but the closing delimiter's last bytes: the file part is complete, the request is not.
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port: store.server.port,
        method: 'POST',
        path: `/${bucket}`,
        headers: { 'content-type': form.contentType, 'content-length': String(form.body.length) },
      });
      req.on('error', () => resolve());
      req.write(form.body.subarray(0, form.body.length - 3), () => {
        // The server has the file's last byte once it holds a staged copy of it and the request is still open.
        const poll = setInterval(() => {
          if (readdirSync(join(store.server.dataDir, 'tmp')).length === 0) return;
          clearInterval(poll);
          setTimeout(() => {
            req.destroy();
            resolve();
          }, 200);
        }, 10);
      });
    });
    for (let i = 0; i < 200 && readdirSync(join(store.server.dataDir, 'tmp')).length > 0; i++) await sleep(20);
    expect(readdirSync(join(store.server.dataDir, 'tmp'))).toEqual([]);
    for (let i = 0; i < 10; i++) {
      expect(await stored(key)).toBeUndefined();
      await sleep(100);
    }
  });

  it('never answered a form with a server error', () => {
    expect(store.server.output()).not.toContain('S3 request failed');
  });
});
