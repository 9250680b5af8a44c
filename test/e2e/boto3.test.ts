// boto3 (Debian's python3-boto3, run by /usr/bin/python3, path-style, SigV4) against Store: the flow lives in
// boto3_flow.py, which prints one JSON object of observations; this file asserts on them.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import { awsClientEnv, runOk } from './support.js';

const BUCKET = 'boto3-e2e';
const MiB = 1024 * 1024;
const store = useStore();
const work = useTempDir('store-e2e-boto3-');
let result: Record<string, unknown>;

beforeAll(async () => {
  mkdirSync(join(work, 'home'));
  const env = awsClientEnv(join(work, 'home'), store.server.credentials);
  const res = await runOk(
    '/usr/bin/python3',
    [join(import.meta.dirname, 'boto3_flow.py'), store.server.url, BUCKET, work],
    { env },
  );
  result = JSON.parse(res.stdout) as Record<string, unknown>;
});

describe('boto3', () => {
  it('create_bucket makes a bucket that list_buckets shows', () => {
    expect(result['buckets']).toEqual([BUCKET]);
  });

  it('upload_file sends 20 MiB as a 3-part multipart upload (8 MiB threshold and chunks) and a small file whole', () => {
    expect(result['big']).toEqual({ etag: expect.stringMatching(/^"[0-9a-f]{32}-3"$/), size: 20 * MiB });
    const small = result['small'] as Record<string, unknown>;
    expect(small).toMatchObject({ size: 14, metadata: { purpose: 'e2e' }, contentType: 'text/plain; charset=utf-8' });
    expect(small['etag']).toBe(`"${String(small['md5'])}"`);
  });

  it('download_file returns both files byte-identical', () => {
    expect(result['downloadsMatch']).toEqual([true, true]);
  });

  it('managed copy (UploadPartCopy over 8 MiB) and copy_object with REPLACE metadata', () => {
    const small = result['small'] as Record<string, unknown>;
    expect(result['copy']).toEqual({
      bigEtag: expect.stringMatching(/^"[0-9a-f]{32}-3"$/),
      bigMatches: true,
      smallMetadata: { purpose: 'copied' },
      smallContentType: 'text/x-copied',
      smallEtag: small['etag'],
    });
  });

  it("boto3's default configuration presigns with SigV2: GET and PUT URLs and a POST form work, a changed URL is refused", () => {
    expect(result['v2PresignedGet']).toEqual({ sigv2: true, status: 200, matches: true });
    expect(result['v2PresignedPut']).toEqual({ sigv2: true, status: 200, stored: true });
    expect(result['v2PresignedPost']).toEqual({ sigv2: true, status: 204, code: null, stored: true });
    expect(result['v2PresignedTampered']).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('generate_presigned_url works for GET and PUT with urllib; a flipped signature is refused', () => {
    expect(result['presignedGet']).toEqual({ status: 200, matches: true });
    expect(result['presignedPut']).toEqual({ status: 200, stored: true });
    expect(result['presignedTampered']).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('the list_objects_v2 paginator walks pages of 3 in key order; delimiter listing groups prefixes', () => {
    expect(result['pages']).toEqual([
      ['page/00', 'page/01', 'page/02'],
      ['page/03', 'page/04', 'page/05'],
      ['page/06'],
    ]);
    expect(result['commonPrefixes']).toEqual(['copy/', 'dir/', 'page/']);
  });

  it('errors carry S3 codes: NoSuchKey, NoSuchBucket, BucketNotEmpty', () => {
    expect(result).toMatchObject({
      missingKey: 'NoSuchKey',
      missingBucket: 'NoSuchBucket',
      deleteNonEmpty: 'BucketNotEmpty',
    });
  });

  it('delete_objects deletes every key (a missing key counts as deleted) and the bucket can go', () => {
    const keys = result['keysBeforeDelete'] as string[];
    expect(keys).toHaveLength(3 + 2 + 7);
    expect(result['deleted']).toEqual([...keys, 'never existed'].sort());
    expect(result['deleteErrors']).toEqual([]);
    expect(result['keyCountAfter']).toBe(0);
    expect(result['bucketGone']).toBe('404');
  });
});
