// Hostile and broken archives: each is refused with a clear 400 and leaves the instance exactly as it was (every
// bucket, configuration, version and byte; no blob file added or removed; nothing left in tmp/). The guard rails are
// set low on this server so bombs and floods stay small. A control restore of the unmodified archive succeeds.

import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { downloadArchive, uploadArchive, viewInstance, type InstanceView } from '../helpers/backup-fixture.js';
import { useStore } from '../helpers/store.js';
import { patchDeclaredSize, renameEntry, unzip, zip, type Entries } from '../helpers/zip-craft.js';

const MiB = 1024 * 1024;
const store = useStore({
  env: {
    RESTORE_MAX_TOTAL_BYTES: String(64 * MiB),
    RESTORE_MAX_ENTRY_BYTES: String(10 * MiB),
    RESTORE_MAX_ENTRIES: '50',
    RESTORE_MAX_MANIFEST_BYTES: '4096',
  },
});
let bucket: string;
let base: Buffer;
let entries: Map<string, Buffer>;
let before: { view: InstanceView; blobs: string[] };

function blobFiles(): string[] {
  return readdirSync(join(store.server.dataDir, 'blobs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

async function state(): Promise<{ view: InstanceView; blobs: string[] }> {
  return { view: await viewInstance(store.s3), blobs: blobFiles() };
}

/** The archive's entries with changes: `null` removes an entry; the order is the original one, then new names. */
function rebuild(changes: Record<string, Buffer | null> = {}, compress: string[] = ['manifest.json']): Promise<Buffer> {
  const list: Entries = [];
  for (const [name, bytes] of entries) {
    if (changes[name] === null) continue;
    list.push([name, changes[name] ?? bytes, { compress: compress.includes(name) }]);
  }
  for (const [name, bytes] of Object.entries(changes))
    if (bytes && !entries.has(name)) list.push([name, bytes, { compress: compress.includes(name) }]);
  return zip(list);
}

function indexLines(): Record<string, unknown>[] {
  return (entries.get('index/000001.jsonl') as Buffer)
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const jsonl = (lines: unknown[]): Buffer => Buffer.from(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
const manifest = (): Record<string, unknown> =>
  JSON.parse((entries.get('manifest.json') as Buffer).toString()) as Record<string, unknown>;

beforeAll(async () => {
  bucket = await store.bucket('victim');
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'small', Body: 'tiny object' }));
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'larger', Body: Buffer.alloc(100_000, 7) }));
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'third', Body: Buffer.alloc(30_000, 9) }));
  const res = await downloadArchive(store.server, await store.admin(), `/buckets/${bucket}/backup`);
  expect(res.status).toBe(200);
  base = res.bytes;
  entries = await unzip(base);
  expect([...entries.keys()].sort()).toEqual([
    'index/000001.jsonl',
    'manifest.json',
    'objects/000000001',
    'objects/000000002',
    'objects/000000003',
  ]);
  before = await state();
});

async function expectRefused(
  archive: Buffer,
  code = 'InvalidArchive',
  path = `/buckets/${bucket}/restore`,
): Promise<string> {
  const res = await uploadArchive(store.server, await store.admin(), { bytes: archive, path: path });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body['error']).toBe(code);
  expect(await state()).toEqual(before);
  expect(readdirSync(join(store.server.dataDir, 'tmp'))).toEqual([]);
  return String(res.body['message']);
}

describe('archives refused with 400 and the instance unchanged', () => {
  it('not a zip, an empty body', async () => {
    await expectRefused(Buffer.from('this is not a zip archive at all'));
    await expectRefused(Buffer.alloc(0), 'MissingRequestBodyError');
  });

  it('a truncated archive (cut in half; one byte short)', async () => {
    await expectRefused(base.subarray(0, Math.floor(base.length / 2)));
    await expectRefused(base.subarray(0, base.length - 1));
  });

  it('entry names that escape: ../, absolute, a drive letter, a backslash', async () => {
    for (const evil of ['../../../../etc/x', '/etc/passwd/00001', 'C:/Windows/000001', 'objects\\000000001']) {
      expect(evil).toHaveLength('objects/000000001'.length);
      expect(await expectRefused(renameEntry(base, 'objects/000000001', evil))).toMatch(/path|name|characters/);
    }
  });

  it('duplicate entries', async () => {
    const list: Entries = [...entries].map(([name, bytes]) => [name, bytes]);
    list.push(['objects/000000002', entries.get('objects/000000002') as Buffer]);
    expect(await expectRefused(await zip(list))).toMatch(/twice/);
  });

  it('a manifest that names a missing entry', async () => {
    expect(await expectRefused(await rebuild({ 'objects/000000002': null }))).toMatch(/does not hold/);
  });

  it('a checksum mismatch (same size, one byte changed), and an entry longer than the manifest says', async () => {
    const changed = Buffer.from(entries.get('objects/000000002') as Buffer);
    changed[500] = (changed[500] as number) ^ 1;
    expect(await expectRefused(await rebuild({ 'objects/000000002': changed }))).toMatch(/SHA-256/);
    const longer = Buffer.concat([entries.get('objects/000000002') as Buffer, Buffer.from('x')]);
    await expectRefused(await rebuild({ 'objects/000000002': longer }));
  });

  it('zip bombs: honest but over RESTORE_MAX_ENTRY_BYTES; lying about their size; a ratio deflate cannot reach', async () => {
    const zeros = Buffer.alloc(20 * MiB);
    expect(await expectRefused(await rebuild({ 'objects/000000002': zeros }, ['objects/000000002']))).toMatch(
      /RESTORE_MAX_ENTRY_BYTES/,
    );
    // Declares 100,000 bytes (what the manifest says) but inflates to 20 MiB.
    const liar = patchDeclaredSize(
      await rebuild({ 'objects/000000002': zeros }, ['objects/000000002']),
      'objects/000000002',
      100_000,
    );
    expect(await expectRefused(liar)).toMatch(/more bytes|too many bytes/);
    const ratio = patchDeclaredSize(await rebuild({}, ['objects/000000002']), 'objects/000000002', 9 * MiB);
    expect(await expectRefused(ratio)).toMatch(/zip bomb/);
  });

  it('an oversized manifest, too many entries, an archive over RESTORE_MAX_TOTAL_BYTES', async () => {
    const padded = Buffer.concat([entries.get('manifest.json') as Buffer, Buffer.alloc(5000, 0x20)]);
    expect(await expectRefused(await rebuild({ 'manifest.json': padded }))).toMatch(/manifest.json is \d+ bytes/);
    const flood: Record<string, Buffer> = {};
    for (let i = 0; i < 50; i++) flood[`extra/${i}`] = Buffer.from('x');
    expect(await expectRefused(await rebuild(flood))).toMatch(/RESTORE_MAX_ENTRIES/);
    // Refused from Content-Length alone, before a byte of the body is read: the headers go first, and the answer is
    // read before any body is sent (a client still sending when the server closes might see a reset instead).
    const token = await store.admin();
    const early = await new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request(
        `${store.server.url}/api/admin/buckets/${bucket}/restore`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/zip',
            'content-length': String(65 * MiB),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            req.destroy();
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
            });
          });
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(early).toMatchObject({ status: 400, body: { error: 'EntityTooLarge' } });
    expect(await state()).toEqual(before);
  });

  it('an entry the manifest does not name, a bad index line, an unknown version, a refused configuration', async () => {
    expect(await expectRefused(await rebuild({ 'objects/000000099': Buffer.from('stowaway') }))).toMatch(
      /not named by the manifest/,
    );
    const lines = indexLines();
    await expectRefused(
      await rebuild({ 'index/000001.jsonl': Buffer.concat([jsonl(lines), Buffer.from('{not json\n')]) }),
    );
    await expectRefused(
      await rebuild({ 'index/000001.jsonl': jsonl([{ ...lines[0], key: 'k'.repeat(1100) }, ...lines.slice(1)]) }),
    );
    await expectRefused(
      await rebuild({
        'index/000001.jsonl': jsonl([lines[0], { ...lines[0], entry: 'objects/000000002' }, ...lines.slice(2)]),
      }),
    );
    await expectRefused(await rebuild({ 'manifest.json': Buffer.from(JSON.stringify({ ...manifest(), version: 3 })) }));
    const badConfig = manifest();
    const buckets = badConfig['buckets'] as { config: Record<string, unknown> }[];
    (buckets[0] as { config: Record<string, unknown> }).config['cors'] = { rules: [] };
    await expectRefused(await rebuild({ 'manifest.json': Buffer.from(JSON.stringify(badConfig)) }));
  });

  it('header-unsafe fields (an ETag or checksum with CR/LF, bad metadata), and an ETag that is not the MD5 of the bytes', async () => {
    const lines = indexLines();
    const first = lines[0] as Record<string, unknown>;
    const withFirst = (changed: Record<string, unknown>): Promise<Buffer> =>
      rebuild({ 'index/000001.jsonl': jsonl([{ ...first, ...changed }, ...lines.slice(1)]) });
    for (const changed of [
      { etag: `${String(first['etag'])}\r\nX-Evil: 1` },
      { checksum: { algorithm: 'CRC32', value: 'AAAAAA==\r\nX-Evil: 1', type: 'FULL_OBJECT' } },
      { checksum: { algorithm: 'SHA256', value: 'AAAAAA==' } },
      { headers: { contentType: 'text/html\r\nSet-Cookie: x=1' } },
      { userMeta: { 'bad name': 'x' } },
      { userMeta: { big: 'x'.repeat(2100) } },
    ]) {
      expect(await expectRefused(await withFirst(changed)), JSON.stringify(changed)).toMatch(
        /etag|checksum|header|metadata|2048|MetadataTooLarge|maximum/i,
      );
    }
    // A well-formed ETag that is not the MD5 of the entry's bytes (as a PUT would compute it).
    expect(await expectRefused(await withFirst({ etag: 'f'.repeat(32) }))).toMatch(/ETag/);
  });

  it('manifest totals that disagree with the indexes (versions, object entries, bytes)', async () => {
    const totals = manifest()['totals'] as { versions: number; entries: number; bytes: number };
    for (const [field, message] of [
      ['versions', /3 versions but the manifest says 4/],
      ['entries', /3 object entries but the manifest says 4/],
      ['bytes', /object bytes but the manifest says/],
    ] as const) {
      const changed = { ...manifest(), totals: { ...totals, [field]: totals[field] + 1 } };
      expect(await expectRefused(await rebuild({ 'manifest.json': Buffer.from(JSON.stringify(changed)) }))).toMatch(
        message,
      );
    }
  });

  it('the unmodified archive restores (the control)', async () => {
    const res = await uploadArchive(store.server, await store.admin(), {
      bytes: base,
      path: `/buckets/${bucket}/restore`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ objectsRestored: 3 });
    expect((await viewInstance(store.s3)).buckets).toEqual(before.view.buckets);
  });
});
