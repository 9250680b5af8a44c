// ObjectSearchService over the real services: what a search shows after puts, overwrites, deletes and versioned
// changes; paging while objects are written; the validation of every parameter and of the cursor.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { ObjectSearchService, type SearchQuery, type SearchTuning } from './object-search-service.js';

let fx: ServiceFixture;
let search: ObjectSearchService;

beforeEach(async () => {
  fx = await openServices('2030-01-01T00:00:00Z');
  search = new ObjectSearchService({ meta: fx.meta });
});
afterEach(async () => {
  await fx.close();
});

async function put(bucket: string, key: string, data = 'x'): Promise<void> {
  await fx.objects.put({ bucket, key, headers: {}, userMeta: {}, body: body(data) });
  fx.clock.ms += 1000;
}

/** Every match, following nextCursor to the end. */
function all(query: SearchQuery, s = search): string[] {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = s.search({ ...query, cursor });
    out.push(...page.items.map((i) => `${i.bucket}/${i.key}`));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

function errorOf(query: SearchQuery): { code: string; message: string } | undefined {
  try {
    search.search(query);
    return undefined;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, message: err.message };
  }
}

/** Works off the index queue, then checks the trigram index holds exactly the current versions' row ids. */
function indexMatchesCurrentRows(): void {
  while (search.indexPending(7) > 0);
  const indexed = fx.meta.db.prepare('SELECT rowid FROM object_search ORDER BY rowid').pluck().all();
  const current = fx.meta.db
    .prepare('SELECT id FROM objects WHERE is_latest = 1 AND is_delete_marker = 0 ORDER BY id')
    .pluck()
    .all();
  expect(indexed).toEqual(current);
  expect(fx.meta.db.prepare('SELECT count(*) FROM object_search_queue').pluck().get()).toBe(0);
}

describe('ObjectSearchService results', () => {
  it('returns bucket, key, size, unquoted etag and an ISO last-modified', async () => {
    fx.buckets.create('photos');
    await put('photos', 'trip/beach.jpg', 'hello');
    const page = search.search({ q: 'beach' });
    expect(page).toEqual({
      items: [
        {
          bucket: 'photos',
          key: 'trip/beach.jpg',
          size: 5,
          etag: '5d41402abc4b2a76b9719d911017c592',
          lastModified: '2030-01-01T00:00:00.000Z',
        },
      ],
      nextCursor: null,
    });
  });

  it('finds a write at once, before the search-index loop has indexed it, and the same after', async () => {
    fx.buckets.create('fresh');
    await put('fresh', 'first/unique-name.txt');
    expect(all({ q: 'unique-name' })).toEqual(['fresh/first/unique-name.txt']);
    indexMatchesCurrentRows();
    expect(all({ q: 'unique-name' })).toEqual(['fresh/first/unique-name.txt']);
    fx.objects.delete('fresh', 'first/unique-name.txt');
    // Still in the index until the loop runs again: the search checks the row itself.
    expect(all({ q: 'unique-name' })).toEqual([]);
    indexMatchesCurrentRows();
    expect(all({ q: 'unique-name' })).toEqual([]);
  });

  it('indexes a reused row id under its new key', () => {
    fx.buckets.create('reuse');
    const row = (key: string) => ({
      bucket: 'reuse',
      key,
      versionId: 'null',
      isLatest: true,
      isDeleteMarker: false,
      size: 1,
      etag: 'e',
      lastModified: 0,
      headers: {},
      userMeta: {},
      checksumAlgorithm: undefined,
      checksumValue: undefined,
      checksumType: undefined,
      blobId: undefined,
      partCount: undefined,
      storageClass: 'STANDARD',
    });
    const id = fx.meta.transaction(() => fx.meta.objects.insert(row('old-name.bin')));
    indexMatchesCurrentRows();
    // SQLite hands the highest row id out again once that row is gone.
    const again = fx.meta.transaction(() => {
      fx.meta.objects.delete(id);
      return fx.meta.objects.insert(row('new-name.bin'));
    });
    expect(again).toBe(id);
    indexMatchesCurrentRows();
    expect(
      fx.meta.db.prepare('SELECT rowid FROM object_search WHERE object_search MATCH \'"old-name"\'').pluck().all(),
    ).toEqual([]);
    expect(all({ q: 'new-name' })).toEqual(['reuse/new-name.bin']);
  });

  it('shows an overwrite as the new object once, and forgets a deleted one (unversioned bucket)', async () => {
    fx.buckets.create('plain');
    await put('plain', 'a/report.txt', 'one');
    await put('plain', 'a/report.txt', 'three');
    expect(search.search({ q: 'report' }).items.map((i) => i.size)).toEqual([5]);
    fx.objects.delete('plain', 'a/report.txt');
    expect(search.search({ q: 'report' }).items).toEqual([]);
    indexMatchesCurrentRows();
  });

  it('follows versioning: a new version replaces, a delete marker hides, removing versions promotes the next', async () => {
    fx.buckets.create('vers');
    fx.buckets.setVersioning('vers', 'Enabled');
    await put('vers', 'doc.txt', 'v1');
    await put('vers', 'doc.txt', 'v2-longer');
    const sizes = () => search.search({ q: 'doc.' }).items.map((i) => i.size);
    expect(sizes()).toEqual([9]);
    const marker = fx.objects.delete('vers', 'doc.txt');
    expect(sizes()).toEqual([]);
    fx.objects.delete('vers', 'doc.txt', { versionId: marker.versionId });
    expect(sizes()).toEqual([9]);
    const latest = fx.meta.objects.findLatest('vers', 'doc.txt');
    fx.objects.delete('vers', 'doc.txt', { versionId: latest?.versionId });
    expect(sizes()).toEqual([2]);
    fx.buckets.setVersioning('vers', 'Suspended');
    await put('vers', 'doc.txt', 'suspended');
    expect(sizes()).toEqual([9]);
    fx.objects.delete('vers', 'doc.txt');
    expect(sizes()).toEqual([]);
    indexMatchesCurrentRows();
  });

  it('matches case exactly unless ignoreCase, which folds ASCII letters only', async () => {
    fx.buckets.create('case');
    for (const key of ['Photo.JPG', 'photo.jpg', 'PHOTO.jpg', 'Ärger', 'ärger']) await put('case', key);
    expect(all({ q: 'photo' })).toEqual(['case/photo.jpg']);
    expect(all({ q: 'Photo' })).toEqual(['case/Photo.JPG']);
    expect(all({ q: 'photo.jpg', ignoreCase: true })).toEqual(['case/PHOTO.jpg', 'case/Photo.JPG', 'case/photo.jpg']);
    expect(all({ q: 'ärger', ignoreCase: true })).toEqual(['case/ärger']);
    expect(all({ q: 'ph', ignoreCase: true })).toHaveLength(3);
    expect(all({ prefix: 'photo' })).toEqual(['case/photo.jpg']);
  });

  it('treats LIKE and FTS5 syntax in q as plain text', async () => {
    fx.buckets.create('syntax');
    const keys = ['100%', '1000', 'a_b', 'axb', 'say "hi"', 'say hi', 'x*y', 'xzy', 'NEAR(a b)', 'a AND b', 'a b'];
    for (const key of keys) await put('syntax', key);
    expect(all({ q: '0%' })).toEqual(['syntax/100%']);
    expect(all({ q: '_' })).toEqual(['syntax/a_b']);
    expect(all({ q: '"hi"' })).toEqual(['syntax/say "hi"']);
    expect(all({ q: '*' })).toEqual(['syntax/x*y']);
    expect(all({ q: 'NEAR(' })).toEqual(['syntax/NEAR(a b)']);
    expect(all({ q: 'AND' })).toEqual(['syntax/a AND b']);
    expect(all({ q: '%', ignoreCase: true })).toEqual(['syntax/100%']);
  });
});

describe('ObjectSearchService paging', () => {
  const tunings: Array<[string, Partial<SearchTuning> | undefined]> = [
    ['through the trigram index', undefined],
    ['by walking the key order in short steps', { candidateBudget: 0, scanBudget: 3 }],
  ];
  for (const [name, tuning] of tunings) {
    it(`visits every match once while objects are added, overwritten and deleted (${name})`, async () => {
      const s = new ObjectSearchService({ meta: fx.meta, tuning });
      for (const b of ['bk1', 'bk2']) {
        fx.buckets.create(b);
        for (let i = 0; i < 20; i += 2) await put(b, `log/${String(i).padStart(2, '0')}.txt`);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      let round = 0;
      do {
        const page = s.search({ q: 'log/', limit: 3, cursor });
        seen.push(...page.items.map((i) => `${i.bucket}/${i.key}`));
        cursor = page.nextCursor ?? undefined;
        round++;
        // Between pages: a key before the position, one after it, an overwrite of a seen key, a delete of an unseen
        // one.
        await put('bk1', `log/${String(round * 2 - 1).padStart(2, '0')}.txt`);
        await put('bk2', `log/${String(round * 2 - 1).padStart(2, '0')}.txt`);
        if (seen.length > 0) await put((seen[0] as string).slice(0, 3), (seen[0] as string).slice(4), 'overwritten');
        if (round === 2) fx.objects.delete('bk2', 'log/18.txt');
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      const stable = ['bk1', 'bk2'].flatMap((b) =>
        [0, 2, 4, 6, 8, 10, 12, 14, 16, 18].map((i) => `${b}/log/${String(i).padStart(2, '0')}.txt`),
      );
      for (const key of stable.filter((k) => k !== 'bk2/log/18.txt')) expect(seen).toContain(key);
      expect(seen).not.toContain('bk2/log/18.txt');
      // bk2's odd keys were added while the walk was still in bk1: all of them are after the position.
      expect(seen.filter((k) => k.startsWith('bk2/') && Number(k.slice(8, 10)) % 2 === 1).length).toBeGreaterThan(3);
      expect(seen).toEqual([...seen].sort());
      indexMatchesCurrentRows();
    });
  }

  it('defaults to 100 items a page and honours limit', async () => {
    fx.buckets.create('many');
    fx.meta.transaction(() => {
      for (let i = 0; i < 150; i++) {
        fx.meta.objects.insert({
          bucket: 'many',
          key: `k${String(i).padStart(3, '0')}`,
          versionId: 'null',
          isLatest: true,
          isDeleteMarker: false,
          size: 1,
          etag: 'e',
          lastModified: 0,
          headers: {},
          userMeta: {},
          checksumAlgorithm: undefined,
          checksumValue: undefined,
          checksumType: undefined,
          blobId: undefined,
          partCount: undefined,
          storageClass: 'STANDARD',
        });
      }
    });
    const first = search.search({});
    expect(first.items).toHaveLength(100);
    expect(first.nextCursor).not.toBeNull();
    const second = search.search({ cursor: first.nextCursor as string, limit: 1000 });
    expect(second.items.map((i) => i.key)).toEqual(
      Array.from({ length: 50 }, (_, i) => `k${String(100 + i).padStart(3, '0')}`),
    );
    expect(second.nextCursor).toBeNull();
    expect(search.search({ limit: 1000 }).items).toHaveLength(150);
  });
});

describe('ObjectSearchService validation', () => {
  const cases: Array<[string, SearchQuery]> = [
    ['limit', { limit: 0 }],
    ['limit', { limit: 1001 }],
    ['limit', { limit: 2.5 }],
    ['limit', { limit: Number.NaN }],
    ['minSize', { minSize: -1 }],
    ['minSize', { minSize: 1.5 }],
    ['maxSize', { maxSize: 2 ** 53 }],
    ['maxSize', { minSize: 10, maxSize: 9 }],
    ['from', { from: 'yesterday' }],
    ['from', { from: '2030-02-30' }],
    ['to', { to: 'Tue, 01 Jan 2030 00:00:00 GMT' }],
    ['to', { from: '2030-01-02', to: '2030-01-01' }],
    ['to', { from: '2030-01-01', to: '2030-01-01T00:00:00Z' }],
    ['q', { q: 'a\ud800b' }],
    ['q', { q: 'x'.repeat(1025) }],
    ['q', { q: 'é'.repeat(513) }],
    ['q', { q: 'a\0b' }],
    ['prefix', { prefix: '\udc00' }],
    ['prefix', { prefix: 'p'.repeat(1025) }],
    ['bucket', { bucket: 'b'.repeat(256) }],
  ];
  for (const [field, query] of cases) {
    it(`refuses ${JSON.stringify(query).slice(0, 60)} naming ${field}`, () => {
      const err = errorOf(query);
      expect(err?.code).toBe('ValidationError');
      expect(err?.message.startsWith(`${field}:`)).toBe(true);
    });
  }

  it('accepts the boundaries and treats empty strings as absent', () => {
    for (const query of [
      { limit: 1 },
      { limit: 1000 },
      { minSize: 0, maxSize: 0 },
      { maxSize: 2 ** 53 - 1 },
      { q: 'x'.repeat(1024) },
      { q: '', prefix: '', bucket: '', from: '', to: '', cursor: '' },
      { from: '2030-01-01', to: '2030-01-01T00:00:00.001Z' },
    ]) {
      expect(errorOf(query)).toBeUndefined();
    }
  });

  it('refuses garbled, truncated, edited and foreign cursors with a 400 naming cursor', async () => {
    fx.buckets.create('cur');
    for (const key of ['a1', 'a2', 'a3']) await put('cur', key);
    const cursor = search.search({ q: 'a', limit: 1 }).nextCursor as string;
    expect(search.search({ q: 'a', limit: 1, cursor }).items.map((i) => i.key)).toEqual(['a2']);
    const [bodyPart, check] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify([1, 'x', 'cur', 'a0'])).toString('base64url');
    const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
    const bad = [
      'garbage',
      '',
      '.',
      `${bodyPart}.`,
      `.${check}`,
      cursor.slice(0, -2),
      cursor + 'A',
      flip(cursor, 3),
      flip(cursor, cursor.length - 3),
      `${forged}.${check}`,
      `${bodyPart}.${check}.${check}`,
      'a'.repeat(9000),
      '%%%.***',
      `${bodyPart}=.${check}`,
    ];
    for (const c of bad.filter((c) => c !== '')) {
      expect({ c, err: errorOf({ q: 'a', cursor: c }) }).toMatchObject({
        c,
        err: { code: 'ValidationError', message: expect.stringMatching(/^cursor:/) },
      });
    }
    // Made for other filters: refused rather than silently applied to a different search.
    expect(errorOf({ q: 'a2', cursor })?.message).toMatch(/^cursor: was made for a search with other filters/);
    expect(errorOf({ q: 'a', ignoreCase: true, cursor })?.code).toBe('ValidationError');
  });
});
