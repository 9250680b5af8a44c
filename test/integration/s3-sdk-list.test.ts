// ListObjectsV2 and ListObjects through @aws-sdk/client-s3 over ~1,200 keys, every page compared with a model
// listing computed here: pagination, common prefixes across page boundaries, markers, url encoding, owners.

import {
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type ListObjectsCommandOutput,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { expectS3Error } from './s3-assert.js';

const store = useStore({ tmpfs: true });
let bucket: string;

/** Keys that need escaping in XML or URL-encoding in a listing (CR/LF and a control character included). */
const ODD_KEYS = [
  'odd/sp ace',
  'odd/a+b',
  'odd/100%',
  'odd/ü/x',
  'odd/日本語/y',
  'odd/emoji😀',
  'odd/\uE000private',
  'odd/<&>"\'',
  'odd/cr\r\nlf',
  'odd/tab\tkey',
  'odd/ctl\u0001key',
  'odd/slash//double',
  'odd/~!*()',
];

function buildKeys(): string[] {
  const keys: string[] = [];
  for (let d = 0; d < 20; d++) {
    for (let f = 0; f < 50; f++) keys.push(`dir${String(d).padStart(2, '0')}/file${String(f).padStart(3, '0')}`);
  }
  for (let t = 0; t < 100; t++) keys.push(`top-${String(t).padStart(3, '0')}`);
  for (let s = 0; s < 10; s++) {
    for (let f = 0; f < 7; f++) keys.push(`dir05/sub${s}/leaf${f}`);
  }
  keys.push('dir05', 'dir05/', 'dir05/sub3', 'a', 'z/', 'z//', ...ODD_KEYS);
  return keys;
}

/** S3 lists in UTF-8 byte order, which differs from JavaScript's UTF-16 order above U+FFFF. */
function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

const KEYS = buildKeys().sort(byteCompare);

interface ModelPage {
  keys: string[];
  prefixes: string[];
  isTruncated: boolean;
  /** The last key or common prefix of the page: where the next one starts. */
  last: string | undefined;
}

/** The page S3 answers for these parameters, computed from the full key set. */
function modelPage(
  all: string[],
  opts: { prefix: string; delimiter: string; after: string; maxKeys: number },
): ModelPage {
  const page: ModelPage = { keys: [], prefixes: [], isTruncated: false, last: undefined };
  const rollUp = (key: string): string | undefined => {
    if (!opts.delimiter) return undefined;
    const at = key.indexOf(opts.delimiter, opts.prefix.length);
    return at < 0 ? undefined : key.slice(0, at + opts.delimiter.length);
  };
  // A marker that is itself a common prefix (the previous page ended on it) resumes past everything under it.
  const skipUnder = opts.after !== '' && rollUp(opts.after) === opts.after ? opts.after : undefined;
  for (const key of all) {
    if (!key.startsWith(opts.prefix) || byteCompare(key, opts.after) <= 0) continue;
    if (skipUnder !== undefined && key.startsWith(skipUnder)) continue;
    const rolled = rollUp(key);
    if (rolled !== undefined && rolled === page.prefixes[page.prefixes.length - 1]) continue;
    if (page.keys.length + page.prefixes.length === opts.maxKeys) {
      page.isTruncated = true;
      break;
    }
    if (rolled !== undefined) page.prefixes.push(rolled);
    else page.keys.push(key);
    page.last = rolled ?? key;
  }
  return page;
}

/** Decodes a value S3 sent url-encoded (space as '+'). */
function urlDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function pageOf(out: ListObjectsV2CommandOutput | ListObjectsCommandOutput, encoded: boolean): Omit<ModelPage, 'last'> {
  const decode = encoded ? urlDecode : (v: string): string => v;
  return {
    keys: (out.Contents ?? []).map((c) => decode(c.Key as string)),
    prefixes: (out.CommonPrefixes ?? []).map((p) => decode(p.Prefix as string)),
    isTruncated: out.IsTruncated === true,
  };
}

/** Some objects are empty, the rest hold their key: sizes in listings are checked against this. */
function bodyOf(key: string): string {
  return key.endsWith('5') ? '' : `v:${key}`;
}

async function putAll(keys: string[], concurrency = 12): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < keys.length) {
      const key = keys[next++] as string;
      await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bodyOf(key) }));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

beforeAll(async () => {
  bucket = await store.bucket('list');
  await putAll(KEYS, 4);
}, 120_000);

const CASES: [string, string, number][] = [
  ['', '', 100],
  ['', '/', 100],
  ['', '/', 7],
  ['dir05/', '/', 3],
  ['dir05', '/', 4],
  ['dir0', '/', 5],
  ['dir1', '', 100],
  ['top-', '', 100],
  ['odd/', '/', 2],
  ['', 'e', 50],
  ['z/', '/', 1],
  ['nothing-here/', '/', 10],
];

describe('ListObjectsV2', () => {
  it.each(CASES)(
    'pages prefix %j delimiter %j with MaxKeys %i exactly like the model',
    async (prefix, delimiter, maxKeys) => {
      const keys = KEYS;
      let token: string | undefined;
      let after = '';
      const seen = new Set<string>();
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(300);
        const out = await store.s3.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: prefix || undefined,
            Delimiter: delimiter || undefined,
            MaxKeys: maxKeys,
            ContinuationToken: token,
          }),
        );
        const model = modelPage(keys, { prefix, delimiter, after, maxKeys });
        expect(pageOf(out, false)).toEqual({
          keys: model.keys,
          prefixes: model.prefixes,
          isTruncated: model.isTruncated,
        });
        expect(out.KeyCount).toBe(model.keys.length + model.prefixes.length);
        expect(out.MaxKeys).toBe(maxKeys);
        expect(out.Prefix ?? '').toBe(prefix);
        expect(out.ContinuationToken).toBe(token);
        for (const entry of [...model.keys, ...model.prefixes]) {
          expect(seen.has(entry)).toBe(false);
          seen.add(entry);
        }
        if (!out.IsTruncated) {
          expect(out.NextContinuationToken).toBeUndefined();
          break;
        }
        expect(out.NextContinuationToken).toBeTruthy();
        token = out.NextContinuationToken;
        after = model.last as string;
      }
    },
  );

  it('starts after StartAfter (a key, or a string between keys) and echoes it', async () => {
    for (const startAfter of ['dir10/file025', 'dir10/file025x', 'dir1', 'top-099']) {
      const out = await store.s3.send(
        new ListObjectsV2Command({ Bucket: bucket, StartAfter: startAfter, MaxKeys: 100 }),
      );
      const model = modelPage(KEYS, { prefix: '', delimiter: '', after: startAfter, maxKeys: 100 });
      expect(pageOf(out, false)).toEqual({
        keys: model.keys,
        prefixes: model.prefixes,
        isTruncated: model.isTruncated,
      });
      expect(out.StartAfter).toBe(startAfter);
    }
  });

  it('ignores StartAfter once a continuation token is given', async () => {
    const first = await store.s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'dir03/', MaxKeys: 10, StartAfter: 'dir03/file010' }),
    );
    expect(first.Contents?.[0]?.Key).toBe('dir03/file011');
    const second = await store.s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: 'dir03/',
        MaxKeys: 10,
        StartAfter: 'dir03/file000',
        ContinuationToken: first.NextContinuationToken,
      }),
    );
    expect(second.Contents?.[0]?.Key).toBe('dir03/file021');
  });

  it('url-encodes keys, prefixes and StartAfter with EncodingType url so that every odd key round-trips', async () => {
    let token: string | undefined;
    const keys: string[] = [];
    const prefixes: string[] = [];
    for (let pages = 0; pages < 50; pages++) {
      const out = await store.s3.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: 'odd/',
          Delimiter: '/',
          MaxKeys: 3,
          EncodingType: 'url',
          ContinuationToken: token,
          StartAfter: 'odd/ ',
        }),
      );
      expect(out.EncodingType).toBe('url');
      expect(out.StartAfter).toBe('odd/+');
      const page = pageOf(out, true);
      keys.push(...page.keys);
      prefixes.push(...page.prefixes);
      token = out.NextContinuationToken;
      if (!out.IsTruncated) break;
    }
    const model = modelPage(KEYS, { prefix: 'odd/', delimiter: '/', after: 'odd/ ', maxKeys: 1000 });
    expect(keys).toEqual(model.keys);
    expect(prefixes).toEqual(model.prefixes);
    expect(keys).toContain('odd/ctl\u0001key');
    expect(keys).toContain('odd/cr\r\nlf');
  });

  it('returns CR/LF and control characters in keys exactly without encoding (as character references)', async () => {
    const out = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'odd/c' }));
    expect((out.Contents ?? []).map((c) => c.Key)).toEqual(['odd/cr\r\nlf', 'odd/ctl\u0001key']);
  });

  it('includes the owner only with FetchOwner, and sizes, ETags and dates always', async () => {
    const plain = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'top-00', MaxKeys: 6 }));
    expect(plain.Contents?.[0]?.Owner).toBeUndefined();
    const first = plain.Contents?.[0];
    expect(first?.Key).toBe('top-000');
    expect(first?.Size).toBe(Buffer.byteLength(bodyOf('top-000')));
    expect(plain.Contents?.find((c) => c.Key === 'top-005')?.Size).toBe(0);
    expect(first?.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first?.StorageClass).toBe('STANDARD');
    expect(first?.LastModified).toBeInstanceOf(Date);
    const owned = await store.s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'top-00', MaxKeys: 3, FetchOwner: true }),
    );
    expect(owned.Contents?.[0]?.Owner?.ID).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers an empty, untruncated page for MaxKeys 0', async () => {
    const out = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 0 }));
    expect(out.KeyCount).toBe(0);
    expect(out.Contents ?? []).toEqual([]);
    expect(out.MaxKeys).toBe(0);
    expect(out.IsTruncated).toBe(false);
  });

  it('refuses a negative MaxKeys with InvalidArgument', async () => {
    await expectS3Error(
      store.s3.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: -1 })),
      'InvalidArgument',
      400,
    );
  });

  it('refuses a non-numeric max-keys with InvalidArgument', async () => {
    const client = sdkClient(store.server);
    client.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { query: Record<string, string> }).query['max-keys'] = 'ten';
        return next(args);
      },
      { step: 'build', name: 'badMaxKeys' },
    );
    await expectS3Error(client.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 10 })), 'InvalidArgument', 400);
  });

  it('refuses a malformed continuation token with InvalidArgument', async () => {
    await expectS3Error(
      store.s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: 'not a token!' })),
      'InvalidArgument',
      400,
    );
  });

  it('answers NoSuchBucket for a missing bucket', async () => {
    await expectS3Error(
      store.s3.send(new ListObjectsV2Command({ Bucket: uniqueBucket('missing') })),
      'NoSuchBucket',
      404,
    );
  });
});

describe('ListObjects (v1)', () => {
  it.each(CASES)(
    'pages prefix %j delimiter %j with MaxKeys %i exactly like the model',
    async (prefix, delimiter, maxKeys) => {
      const keys = KEYS;
      let marker = '';
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(300);
        const out = await store.s3.send(
          new ListObjectsCommand({
            Bucket: bucket,
            Prefix: prefix || undefined,
            Delimiter: delimiter || undefined,
            MaxKeys: maxKeys,
            Marker: marker || undefined,
          }),
        );
        const model = modelPage(keys, { prefix, delimiter, after: marker, maxKeys });
        expect(pageOf(out, false)).toEqual({
          keys: model.keys,
          prefixes: model.prefixes,
          isTruncated: model.isTruncated,
        });
        expect(out.Marker ?? '').toBe(marker);
        expect(out.MaxKeys).toBe(maxKeys);
        if (!out.IsTruncated) {
          expect(out.NextMarker).toBeUndefined();
          break;
        }
        // S3 sends NextMarker only with a delimiter; without one, clients continue from the last key.
        if (delimiter) expect(out.NextMarker).toBe(model.last);
        else expect(out.NextMarker).toBeUndefined();
        marker = out.NextMarker ?? (out.Contents?.[out.Contents.length - 1]?.Key as string);
      }
    },
  );

  it('always includes the owner', async () => {
    const out = await store.s3.send(new ListObjectsCommand({ Bucket: bucket, Prefix: 'top-00', MaxKeys: 2 }));
    expect(out.Contents?.[0]?.Owner?.ID).toMatch(/^[0-9a-f]{64}$/);
  });

  it('url-encodes keys, common prefixes and NextMarker with EncodingType url, and the decoded marker resumes', async () => {
    let marker: string | undefined;
    const keys: string[] = [];
    const prefixes: string[] = [];
    for (let pages = 0; pages < 50; pages++) {
      const out = await store.s3.send(
        new ListObjectsCommand({
          Bucket: bucket,
          Prefix: 'odd/',
          Delimiter: '/',
          MaxKeys: 2,
          EncodingType: 'url',
          Marker: marker,
        }),
      );
      const page = pageOf(out, true);
      keys.push(...page.keys);
      prefixes.push(...page.prefixes);
      if (!out.IsTruncated) break;
      marker = urlDecode(out.NextMarker as string);
    }
    const model = modelPage(KEYS, { prefix: 'odd/', delimiter: '/', after: '', maxKeys: 1000 });
    expect(keys).toEqual(model.keys);
    expect(prefixes).toEqual(model.prefixes);
  });

  it('refuses an invalid max-keys with InvalidArgument', async () => {
    await expectS3Error(store.s3.send(new ListObjectsCommand({ Bucket: bucket, MaxKeys: -5 })), 'InvalidArgument', 400);
  });
});
