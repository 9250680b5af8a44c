// Text that Store later sends back as a response header but that did not arrive as one: POST form fields
// (Content-Type, Cache-Control, x-amz-meta-*) and GetObject's response-* overrides. Controls such as CR/LF are a 400
// naming the field (they were stored, and every GET and HEAD of the object then failed with a 500), and UTF-8 text
// travels as its UTF-8 bytes, like a header carrying it would.

import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { formWithFile, signedPolicyFields } from '../helpers/post-form.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const store = useStore();
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('hdr');
});

async function post(key: string, extra: Record<string, string>): Promise<{ status: number; text: string }> {
  const fields = signedPolicyFields({
    bucket,
    accessKeyId: store.server.credentials.accessKeyId,
    secretAccessKey: store.server.credentials.secretAccessKey,
    conditions: [{ key }, ...Object.keys(extra).map((name) => ['starts-with', `$${name}`, ''])],
  });
  const form = formWithFile({ key, ...extra, ...fields }, { filename: 'f.txt', content: 'hello' });
  const res = await fetch(`${store.server.url}/${bucket}`, {
    method: 'POST',
    headers: { 'content-type': form.contentType },
    body: form.body,
  });
  return { status: res.status, text: await res.text() };
}

describe('POST Object fields that become headers', () => {
  it.each([
    ['Content-Type', 'text/html\r\nX-Injected: 1'],
    ['Cache-Control', 'max-age=1\u0001'],
    ['Content-Disposition', 'attachment\nfilename=x'],
    ['x-amz-meta-note', 'line one\r\nline two'],
    ['x-amz-meta-bad name', 'value'],
  ])(
    '%s with characters no header can carry is refused with 400 InvalidArgument, and nothing is stored',
    async (field, value) => {
      const key = `refused-${field.replace(/\W/g, '')}`;
      const res = await post(key, { [field]: value });
      expect(res.status).toBe(400);
      expect(res.text).toContain('<Code>InvalidArgument</Code>');
      expect((await rawRequest(store.server, { method: 'GET', path: `/${bucket}/${key}`, sign: true })).code).toBe(
        'NoSuchKey',
      );
    },
  );

  it('UTF-8 metadata and a latin-1 filename come back as the UTF-8 bytes a header would carry; the object stays readable', async () => {
    const res = await post('utf8.txt', {
      'x-amz-meta-title': 'Résumé 日本',
      'Content-Disposition': 'attachment; filename="café.txt"',
    });
    expect(res.status).toBe(204);
    const got = await rawRequest(store.server, { method: 'GET', path: `/${bucket}/utf8.txt`, sign: true });
    expect(got.status).toBe(200);
    expect(got.text).toBe('hello');
    const bytes = (header: string | string[] | undefined): string =>
      Buffer.from(String(header), 'latin1').toString('utf8');
    expect(bytes(got.headers['x-amz-meta-title'])).toBe('Résumé 日本');
    expect(bytes(got.headers['content-disposition'])).toBe('attachment; filename="café.txt"');
    expect(
      (await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'utf8.txt' }))).$metadata.httpStatusCode,
    ).toBe(200);
  });
});

describe("GetObject's response-* overrides", () => {
  it.each([
    ['response-content-type', 'text/html%0D%0AX-Injected:%201'],
    ['response-content-disposition', 'attachment%0Afilename=x'],
    ['response-cache-control', '%01'],
  ])('%s with a control character is 400 InvalidArgument, not a 500', async (param, value) => {
    const res = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/utf8.txt?${param}=${value}`,
      sign: true,
    });
    expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'InvalidArgument' });
    expect(res.headers['x-injected']).toBeUndefined();
  });

  it('a UTF-8 override is sent as its UTF-8 bytes', async () => {
    const res = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/utf8.txt?response-content-disposition=${encodeURIComponent('inline; filename="日本.txt"')}`,
      sign: true,
    });
    expect(res.status).toBe(200);
    expect(Buffer.from(String(res.headers['content-disposition']), 'latin1').toString('utf8')).toBe(
      'inline; filename="日本.txt"',
    );
  });
});
