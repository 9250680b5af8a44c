// ListBuckets paging as AWS answers it, through the SDK's ListBucketsCommand: MaxBuckets (1..10000), ContinuationToken,
// Prefix and BucketRegion; <ContinuationToken> and <Prefix> in the result and <BucketRegion> on each bucket.

import { CreateBucketCommand, ListBucketsCommand, type ListBucketsCommandInput } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../helpers/store.js';
import { rawRequest } from '../helpers/signed-http.js';
import { expectS3Error } from './s3-assert.js';

const store = useStore({ tmpfs: true });
const NAMES = ['lb-a', 'lb-b', 'lb-c', 'lb-d', 'lb-e', 'other-1', 'other-2'];

beforeAll(async () => {
  for (const name of [...NAMES].reverse()) await store.s3.send(new CreateBucketCommand({ Bucket: name }));
});

/** Every page of a listing, following ContinuationToken; at most 20 pages. */
async function pages(input: ListBucketsCommandInput): Promise<{ names: string[][]; prefixes: (string | undefined)[] }> {
  const names: string[][] = [];
  const prefixes: (string | undefined)[] = [];
  let token: string | undefined;
  do {
    const page = await store.s3.send(new ListBucketsCommand({ ...input, ContinuationToken: token }));
    names.push((page.Buckets ?? []).map((b) => b.Name ?? ''));
    prefixes.push(page.Prefix);
    token = page.ContinuationToken;
  } while (token !== undefined && names.length < 20);
  return { names, prefixes };
}

describe('ListBuckets', () => {
  it('pages every bucket in name order with MaxBuckets and ContinuationToken, each with its BucketRegion', async () => {
    const { names } = await pages({ MaxBuckets: 3 });
    expect(names).toEqual([['lb-a', 'lb-b', 'lb-c'], ['lb-d', 'lb-e', 'other-1'], ['other-2']]);
    const first = await store.s3.send(new ListBucketsCommand({ MaxBuckets: 3 }));
    expect(first.Buckets?.map((b) => b.BucketRegion)).toEqual(['us-east-1', 'us-east-1', 'us-east-1']);
    expect(first.ContinuationToken).toBeDefined();
    expect(first.Prefix).toBeUndefined();
  });

  it('has no ContinuationToken on the last page, nor when everything fits', async () => {
    const all = await store.s3.send(new ListBucketsCommand({}));
    expect(all.Buckets?.map((b) => b.Name)).toEqual(NAMES);
    expect(all.ContinuationToken).toBeUndefined();
    const exact = await store.s3.send(new ListBucketsCommand({ MaxBuckets: NAMES.length }));
    expect(exact.ContinuationToken).toBeUndefined();
  });

  it('filters by Prefix across pages and echoes it on every page', async () => {
    const { names, prefixes } = await pages({ Prefix: 'lb-', MaxBuckets: 2 });
    expect(names).toEqual([['lb-a', 'lb-b'], ['lb-c', 'lb-d'], ['lb-e']]);
    expect(prefixes).toEqual(['lb-', 'lb-', 'lb-']);
    const none = await store.s3.send(new ListBucketsCommand({ Prefix: 'zzz' }));
    expect({ buckets: none.Buckets ?? [], prefix: none.Prefix }).toEqual({ buckets: [], prefix: 'zzz' });
  });

  it("filters by BucketRegion: the server's region lists every bucket, another none", async () => {
    const { names } = await pages({ BucketRegion: 'us-east-1', MaxBuckets: 4 });
    expect(names.flat()).toEqual(NAMES);
    const elsewhere = await store.s3.send(new ListBucketsCommand({ BucketRegion: 'eu-west-1' }));
    expect(elsewhere.Buckets ?? []).toEqual([]);
    const raw = await rawRequest(store.server, {
      method: 'GET',
      path: '/?bucket-region=us-east-1&max-buckets=1',
      sign: true,
    });
    expect(raw.text).toContain('<BucketRegion>us-east-1</BucketRegion>');
  });

  it('refuses MaxBuckets outside 1..10000 and a continuation token it never issued with InvalidArgument', async () => {
    await expectS3Error(store.s3.send(new ListBucketsCommand({ MaxBuckets: 0 })), 'InvalidArgument', 400);
    await expectS3Error(store.s3.send(new ListBucketsCommand({ MaxBuckets: 10_001 })), 'InvalidArgument', 400);
    await expectS3Error(
      store.s3.send(new ListBucketsCommand({ ContinuationToken: 'not a token!' })),
      'InvalidArgument',
      400,
    );
    const maxOk = await store.s3.send(new ListBucketsCommand({ MaxBuckets: 10_000 }));
    expect(maxOk.Buckets).toHaveLength(NAMES.length);
  });
});
