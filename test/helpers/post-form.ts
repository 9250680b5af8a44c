// POST Object forms for tests: a SigV4-signed policy document (what a web app's server hands its page) and a
// multipart/form-data body built by hand, so tests can also send the malformed and out-of-order forms browsers never
// do.

import { randomBytes } from 'node:crypto';
import { formatAmzDate } from '../../src/sigv4/canonical.js';
import { deriveSigningKey, signatureHex } from '../../src/sigv4/signature.js';

export interface PolicyOptions {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Conditions besides the bucket and the x-amz-* signature fields, which are added. */
  conditions?: unknown[];
  /** Default: an hour from now. */
  expiration?: Date;
  region?: string;
  now?: Date;
  /** Leave out the {"bucket": ...} condition. */
  omitBucketCondition?: boolean;
}

/** The form fields that authenticate an upload: policy, x-amz-algorithm, -credential, -date and -signature. */
export function signedPolicyFields(opts: PolicyOptions): Record<string, string> {
  const now = opts.now ?? new Date();
  const region = opts.region ?? 'us-east-1';
  const amzDate = formatAmzDate(now);
  const date = amzDate.slice(0, 8);
  const credential = `${opts.accessKeyId}/${date}/${region}/s3/aws4_request`;
  const document = {
    expiration: (opts.expiration ?? new Date(now.getTime() + 3600_000)).toISOString(),
    conditions: [
      ...(opts.omitBucketCondition ? [] : [{ bucket: opts.bucket }]),
      ...(opts.conditions ?? []),
      { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
      { 'x-amz-credential': credential },
      { 'x-amz-date': amzDate },
    ],
  };
  const policy = Buffer.from(JSON.stringify(document)).toString('base64');
  return signPolicy(policy, { ...opts, region, amzDate, credential });
}

/** Signs an already-encoded policy (for tests that tamper with the document). */
export function signPolicy(
  policy: string,
  opts: { secretAccessKey: string; region: string; amzDate: string; credential: string },
): Record<string, string> {
  const key = deriveSigningKey(opts.secretAccessKey, {
    date: opts.amzDate.slice(0, 8),
    region: opts.region,
    service: 's3',
  });
  return {
    policy,
    'x-amz-algorithm': 'AWS4-HMAC-SHA256',
    'x-amz-credential': opts.credential,
    'x-amz-date': opts.amzDate,
    'x-amz-signature': signatureHex(key, policy),
  };
}

export type FormPart =
  { name: string; value: string } | { name: string; filename: string; content: Buffer | string; contentType?: string };

/** A multipart/form-data body of these parts, in this order. */
export function multipartBody(parts: readonly FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `----store-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('filename' in part)
      head += `; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}`;
    chunks.push(
      Buffer.from(`${head}\r\n\r\n`),
      Buffer.from('filename' in part ? part.content : part.value),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Fields (in order) then the file: the usual form. */
export function formWithFile(
  fields: Record<string, string>,
  file: { filename: string; content: Buffer | string; contentType?: string },
): { body: Buffer; contentType: string } {
  return multipartBody([
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    { name: 'file', ...file },
  ]);
}
