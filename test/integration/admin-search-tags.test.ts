// GET /api/admin/objects/search by tag: tagKey alone (any value), tagKey with tagValue (exact), with
// every plan (a walk, the trigram index, the size index), on current versions only; tagValue without tagKey is a 400.
// docs/admin-search.md.

import { CreateBucketCommand, PutBucketVersioningCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';

const store = useStore();
const bucket = uniqueBucket('search-tags');

async function found(params: Record<string, string | number>): Promise<string[]> {
  const res = await adminCall(store.server, await store.admin(), {
    method: 'GET',
    path: `/objects/search?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { items: Array<{ key: string }> }).items.map((i) => i.key);
}

beforeAll(async () => {
  await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await store.s3.send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
  );
  const put = (key: string, size: number, tagging?: string) =>
    store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x'.repeat(size), Tagging: tagging }));
  await put('docs/report.pdf', 100, 'team=media&kind=doc');
  await put('docs/notes.txt', 10, 'team=infra');
  await put('docs/blank.txt', 20, 'team=');
  await put('img/cat.png', 3000, 'kind=image');
  await put('img/untagged.png', 50);
  // An older version carried the tag; the current one does not: not a match.
  await put('img/retagged.png', 60, 'team=media');
  await put('img/retagged.png', 60, 'kind=image');
});

describe('search by tag', () => {
  it('matches a tag key with any value, current versions only', async () => {
    expect(await found({ bucket, tagKey: 'team' })).toEqual(['docs/blank.txt', 'docs/notes.txt', 'docs/report.pdf']);
    expect(await found({ bucket, tagKey: 'kind' })).toEqual(['docs/report.pdf', 'img/cat.png', 'img/retagged.png']);
    expect(await found({ bucket, tagKey: 'Team' })).toEqual([]);
  });

  it('matches a key and an exact value; an empty tagValue is left out, as every empty parameter', async () => {
    expect(await found({ bucket, tagKey: 'team', tagValue: 'media' })).toEqual(['docs/report.pdf']);
    expect(await found({ bucket, tagKey: 'team', tagValue: 'Media' })).toEqual([]);
    expect(await found({ bucket, tagKey: 'team', tagValue: '' })).toEqual([
      'docs/blank.txt',
      'docs/notes.txt',
      'docs/report.pdf',
    ]);
  });

  it('combines with the substring (trigram index) and size plans, and pages by cursor', async () => {
    expect(await found({ bucket, q: 'report', tagKey: 'team' })).toEqual(['docs/report.pdf']);
    expect(await found({ bucket, minSize: 1000, tagKey: 'kind' })).toEqual(['img/cat.png']);
    const first = await adminCall(store.server, await store.admin(), {
      method: 'GET',
      path: `/objects/search?bucket=${bucket}&tagKey=team&limit=2`,
    });
    const page = first.body as { items: Array<{ key: string }>; nextCursor: string };
    expect(page.items.map((i) => i.key)).toEqual(['docs/blank.txt', 'docs/notes.txt']);
    expect(await found({ bucket, tagKey: 'team', limit: 2, cursor: page.nextCursor })).toEqual(['docs/report.pdf']);
    // The cursor belongs to this tag filter: with another one it is refused.
    const other = await adminCall(store.server, await store.admin(), {
      method: 'GET',
      path: `/objects/search?bucket=${bucket}&tagKey=kind&limit=2&cursor=${encodeURIComponent(page.nextCursor)}`,
    });
    expect(other.status).toBe(400);
  });

  it('refuses tagValue without tagKey, naming the field', async () => {
    const res = await adminCall(store.server, await store.admin(), {
      method: 'GET',
      path: `/objects/search?tagValue=media`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'ValidationError', message: expect.stringContaining('tagValue') });
  });
});
