// boto3 (Debian's python3-boto3) with `addressing_style: virtual` against Store with STORE_DOMAIN: every request goes
// to
// `<bucket>.s3.test` (resolved inside the Python process, no /etc/hosts), SigV4 and SigV2 (header, presigned URL, POST
// form). The flow lives in boto3_virtual.py, which prints one JSON object of observations.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import { awsClientEnv, runOk } from './support.js';

const DOMAIN = 's3.test';
const BUCKET = 'boto3-vhost';
const MiB = 1024 * 1024;
const store = useStore({ env: { STORE_DOMAIN: DOMAIN } });
const work = useTempDir('store-e2e-boto3-vhost-');
let result: Record<string, unknown>;

beforeAll(async () => {
  mkdirSync(join(work, 'home'));
  const env = awsClientEnv(join(work, 'home'), store.server.credentials);
  const script = join(import.meta.dirname, 'boto3_virtual.py');
  const res = await runOk('/usr/bin/python3', [script, DOMAIN, String(store.server.port), BUCKET, work], { env });
  result = JSON.parse(res.stdout) as Record<string, unknown>;
});

describe('boto3 with virtual-hosted–style addressing', () => {
  it('addresses the bucket by its host name (and ListBuckets by the domain)', () => {
    expect(result['resolved']).toEqual([`${BUCKET}.${DOMAIN}`, DOMAIN]);
    expect(result['buckets']).toEqual([BUCKET]);
  });

  it('uploads in parts, downloads, lists and presigns (SigV4) through the bucket host', () => {
    expect(result['big']).toEqual({ etag: expect.stringMatching(/^"[0-9a-f]{32}-2"$/), size: 12 * MiB });
    expect(result['bigMatches']).toBe(true);
    expect(result['keys']).toEqual(['dir/big.bin', 'dir/small ü+.txt']);
    expect(result['presignedGet']).toEqual({
      host: `${BUCKET}.${DOMAIN}`,
      status: 200,
      body: 'small over a virtual host\n',
    });
  });

  it('signs with SigV2 (the resource /bucket/key) in headers, presigned URLs and POST forms', () => {
    expect(result['v2Header']).toEqual({ body: 'header-signed v2\n', keys: ['v2/header.txt'] });
    expect(result['v2Presigned']).toEqual({
      sigv2: true,
      host: `${BUCKET}.${DOMAIN}`,
      status: 200,
      body: 'header-signed v2\n',
    });
    expect(result['v2Post']).toEqual({
      url: `http://${BUCKET}.${DOMAIN}:${store.server.port}/`,
      status: 204,
      code: null,
      stored: 'posted to the bucket host\n',
    });
  });

  it('answers errors and deletes through the bucket host', () => {
    expect(result['missingKey']).toBe('NoSuchKey');
    expect(result['bucketsAfter']).toEqual([]);
  });
});
