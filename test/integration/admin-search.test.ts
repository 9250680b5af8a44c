// GET /api/admin/objects/search against the real server: objects written through the AWS SDK are found by every
// filter, URL-encoded awkward text survives the trip, paging by cursor, the token gate and 400s naming the field.

import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';

const store = useStore();
const plain = uniqueBucket('search-a');
const versioned = uniqueBucket('search-b');
const OBJECTS: Array<[string, string, number]> = [
  [plain, 'reports/2030/Q1 100%.pdf', 10],
  [plain, 'reports/2030/q2_final.pdf', 2000],
  [plain, 'img/cat & dog#1.png', 300],
  [plain, 'img/日本語 "quoted".png', 40],
  [plain, 'notes+plus.txt', 5],
  [versioned, 'reports/archive.zip', 5000],
  [versioned, 'img/deleted.png', 1],
  [versioned, 'img/kept.png', 64],
];
let started: number;

interface Item {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  lastModified: string;
}
interface Page {
  items: Item[];
  nextCursor: string | null;
}

/** A search with the admin token, or with `t` (null: no Authorization header). */
const search = async (params: Record<string, string | number | boolean>, t?: string | null) =>
  adminCall(store.server, t === null ? undefined : (t ?? (await store.admin())), {
    method: 'GET',
    path: `/objects/search?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`,
  });

async function keys(params: Record<string, string | number | boolean>): Promise<string[]> {
  const res = await search(params);
  expect(res.status).toBe(200);
  return (res.body as Page).items.map((i) => `${i.bucket === plain ? 'A' : 'B'}:${i.key}`);
}

beforeAll(async () => {
  started = Date.now() - 1000;
  await store.s3.send(new CreateBucketCommand({ Bucket: plain }));
  await store.s3.send(new CreateBucketCommand({ Bucket: versioned }));
  await store.s3.send(
    new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Enabled' } }),
  );
  for (const [bucket, key, size] of OBJECTS)
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.alloc(size, 1) }));
  await store.s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'img/deleted.png' }));
});

describe('GET /api/admin/objects/search', () => {
  it('finds objects by substring across buckets, in bucket then key order, with their metadata', async () => {
    const res = await search({ q: 'reports/' });
    expect(res.status).toBe(200);
    const page = res.body as Page;
    expect(page.items.map((i) => i.key)).toEqual([
      'reports/2030/Q1 100%.pdf',
      'reports/2030/q2_final.pdf',
      'reports/archive.zip',
    ]);
    expect(page.nextCursor).toBeNull();
    const item = page.items[2] as Item;
    expect(item).toMatchObject({ bucket: versioned, size: 5000, etag: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(Date.parse(item.lastModified)).toBeGreaterThanOrEqual(started);
  });

  it('keeps awkward text literal through URL encoding', async () => {
    expect(await keys({ q: '100%' })).toEqual(['A:reports/2030/Q1 100%.pdf']);
    expect(await keys({ q: '_' })).toEqual(['A:reports/2030/q2_final.pdf']);
    expect(await keys({ q: '& dog#' })).toEqual(['A:img/cat & dog#1.png']);
    expect(await keys({ q: '"quoted"' })).toEqual(['A:img/日本語 "quoted".png']);
    expect(await keys({ q: '本' })).toEqual(['A:img/日本語 "quoted".png']);
    expect(await keys({ q: '+' })).toEqual(['A:notes+plus.txt']);
  });

  it('filters by case, prefix, bucket, size and date, and hides delete markers', async () => {
    expect(await keys({ q: 'q1' })).toEqual([]);
    expect(await keys({ q: 'q1', ignoreCase: true })).toEqual(['A:reports/2030/Q1 100%.pdf']);
    expect(await keys({ prefix: 'img/' })).toEqual([
      'A:img/cat & dog#1.png',
      'A:img/日本語 "quoted".png',
      'B:img/kept.png',
    ]);
    expect(await keys({ prefix: 'img/', bucket: versioned })).toEqual(['B:img/kept.png']);
    expect(await keys({ minSize: 1000 })).toEqual(['A:reports/2030/q2_final.pdf', 'B:reports/archive.zip']);
    expect(await keys({ minSize: 40, maxSize: 64 })).toEqual(['A:img/日本語 "quoted".png', 'B:img/kept.png']);
    expect(
      await keys({ from: new Date(started).toISOString(), to: new Date(Date.now() + 60_000).toISOString() }),
    ).toHaveLength(7);
    expect(await keys({ from: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    expect(await keys({ q: 'deleted' })).toEqual([]);
  });

  it('pages with an opaque cursor, every object once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const params: Record<string, string | number> = { limit: 2, ...(cursor ? { cursor } : {}) };
      const res = await search(params);
      expect(res.status).toBe(200);
      const page = res.body as Page;
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((i) => `${i.bucket}/${i.key}`));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  it('indexes the written objects in the background (the search-index loop runs in the server)', async () => {
    const db = new BetterSqlite3(join(store.server.dataDir, 'meta.db'), { readonly: true });
    try {
      const count = (sql: string) => db.prepare(sql).pluck().get() as number;
      for (let waited = 0; count('SELECT count(*) FROM object_search_queue') > 0; waited += 50) {
        expect(waited).toBeLessThan(10_000);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(count('SELECT count(*) FROM object_search')).toBe(7);
    } finally {
      db.close();
    }
  });

  it('answers 401 without a token or with a bad one', async () => {
    expect((await search({ q: 'img' }, null)).status).toBe(401);
    const bad = await search({ q: 'img' }, `${(await store.admin()).slice(0, -4)}AAAA`);
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ error: 'Unauthorized', statusCode: 401 });
  });

  it('answers 400 naming the field for bad parameters, in the error envelope', async () => {
    const first = (await search({ limit: 1 })).body as Page;
    const cases: Array<[Record<string, string | number>, string]> = [
      [{ limit: 0 }, 'limit'],
      [{ limit: 1001 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ minSize: -1 }, 'minSize'],
      [{ maxSize: 'big' }, 'maxSize'],
      [{ minSize: 5, maxSize: 4 }, 'maxSize'],
      [{ from: 'last week' }, 'from'],
      [{ from: '2030-01-02', to: '2030-01-01' }, 'to'],
      [{ cursor: 'not-a-cursor' }, 'cursor'],
      [{ cursor: `${first.nextCursor as string}x` }, 'cursor'],
      [{ q: 'other', cursor: first.nextCursor as string }, 'cursor'],
      [{ q: 'x'.repeat(1025) }, 'q'],
      [{ q: 'x', minsize: 5 }, 'minsize'],
    ];
    for (const [params, field] of cases) {
      const res = await search(params);
      expect({ params, status: res.status }).toEqual({ params, status: 400 });
      expect(res.body).toMatchObject({
        error: 'ValidationError',
        statusCode: 400,
        message: expect.stringContaining(field),
      });
    }
  });
});
