// Staging a restore: every version the archive holds for the restored buckets, in history order, is checked against
// the manifest (entry present, declared size, SHA-256 or v1 MD5) while its bytes are re-encrypted into new blobs
// under THIS instance's SSE key (the two-phase writer; small objects sealed inline, multipart objects split back
// into one blob per part). Rows go to the scratch database; nothing touches the live metadata yet.

import { createHash, type Hash } from 'node:crypto';
import {
  invalid,
  parseVersionLine,
  type ArchivedBucket,
  type ArchivedVersion,
  type Manifest,
  type ManifestV1,
  type ManifestV2,
} from '../../core/backup-manifest.js';
import { lines, SliceReader, StreamShapeError } from '../../lib/stream-bytes.js';
import type { BlobStore, StagedBlob } from '../../storage/blobs/blob-store.js';
import type { NewObjectRow, ObjectPartRow } from '../../storage/db/objects-repo.js';
import type { RestoreScratch } from '../../storage/db/restore-scratch.js';
import { INLINE_MAX_BYTES } from '../objects/body-ingest.js';
import type { ArchiveReader } from './archive-reader.js';

/** Longest index line accepted: tags, metadata and a 10,000-part list fit well inside it. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** The buckets being restored: archive bucket name -> the bucket it becomes here (renamed for a bucket restore). */
export type RestorePlan = Map<string, { target: string; bucket: ArchivedBucket }>;

export interface StagingTotals {
  versions: number;
  objects: number;
  deleteMarkers: number;
  bytes: number;
}

export interface StagingContext {
  reader: ArchiveReader;
  scratch: RestoreScratch;
  blobs: BlobStore;
  plan: RestorePlan;
  signal?: AbortSignal | undefined;
}

interface Expected {
  size: number;
  sha256?: string | undefined;
  /** The MD5 of the whole entry: a single-part version's ETag (v2), or v1's md5. */
  md5?: string | undefined;
  /** A multipart version's parts, each checked against its own ETag (the MD5 of its bytes). */
  parts?: ArchivedVersion['parts'];
}

/**
 * Stages every version of the planned buckets. Entries of buckets not being restored are skipped unread. Throws
 * InvalidArchive for any inconsistency: a bad line, a missing or doubly used entry, a size or checksum mismatch, a
 * version named twice, an entry the manifest never mentions, counts that disagree with the manifest.
 */
export async function stageArchive(ctx: StagingContext, manifest: Manifest): Promise<StagingTotals> {
  const used = new Set<string>(['manifest.json']);
  const totals: StagingTotals = { versions: 0, objects: 0, deleteMarkers: 0, bytes: 0 };
  if (manifest.version === 2) await stageV2(ctx, manifest, { used, totals });
  else await stageV1(ctx, manifest, { used, totals });
  for (const name of ctx.reader.names()) {
    if (!used.has(name)) throw invalid(`the entry ${name} is not named by the manifest`);
  }
  return totals;
}

/** The entries claimed so far (each may be used once) and the running totals. */
interface Tally {
  used: Set<string>;
  totals: StagingTotals;
}

async function stageV2(ctx: StagingContext, manifest: ManifestV2, { used, totals }: Tally): Promise<void> {
  const buckets = new Map(manifest.buckets.map((b) => [b.name, b]));
  let seen = 0;
  let seenEntries = 0;
  let seenBytes = 0;
  let seq = 0;
  for (const index of manifest.indexes) {
    if (used.has(index)) throw invalid(`the index ${index} is listed twice`);
    used.add(index);
    let lineNo = 0;
    try {
      for await (const line of lines(await ctx.reader.open(index), MAX_LINE_BYTES)) {
        lineNo++;
        if (line === '') continue;
        ctx.signal?.throwIfAborted();
        const version = parseVersionLine(line, buckets, `${index} line ${lineNo}`);
        seen++;
        const planned = ctx.plan.get(version.bucket);
        if (version.entry !== undefined) {
          claim(used, version.entry);
          seenEntries++;
          seenBytes += version.size;
        }
        if (!planned) continue;
        const row = rowOf(version, planned.target);
        seq++;
        if (version.deleteMarker) {
          add(ctx, { seq, row, parts: [], sealed: undefined });
          totals.deleteMarkers++;
        } else {
          // A single-part version's ETag is the MD5 of its bytes, verified as they are read (as a PUT computes it).
          const md5 = version.parts === undefined ? version.etag : undefined;
          const staged = await stageEntry(ctx, version.entry as string, {
            size: version.size,
            sha256: version.sha256,
            md5,
            parts: version.parts,
          });
          add(ctx, { seq, row: { ...row, blobId: staged.blobId }, parts: staged.parts, sealed: staged.sealed });
          totals.objects++;
          totals.bytes += version.size;
        }
        totals.versions++;
      }
    } catch (err) {
      if (err instanceof StreamShapeError) throw invalid(`${index}: ${err.message}`);
      throw err;
    }
  }
  const { versions, entries, bytes } = manifest.totals;
  if (seen !== versions) throw invalid(`the indexes list ${seen} versions but the manifest says ${versions}`);
  if (seenEntries !== entries)
    throw invalid(`the indexes name ${seenEntries} object entries but the manifest says ${entries}`);
  if (seenBytes !== bytes) throw invalid(`the indexes list ${seenBytes} object bytes but the manifest says ${bytes}`);
}

async function stageV1(ctx: StagingContext, manifest: ManifestV1, { used, totals }: Tally): Promise<void> {
  let seq = 0;
  for (const bucket of manifest.buckets) {
    const planned = ctx.plan.get(bucket.name);
    for (const object of bucket.objects) {
      claim(used, object.file);
      if (!planned) continue;
      ctx.signal?.throwIfAborted();
      const staged = await stageEntry(ctx, object.file, { size: object.size, md5: object.md5 });
      const row: NewObjectRow = {
        bucket: planned.target,
        key: object.key,
        versionId: 'null',
        isLatest: false,
        isDeleteMarker: false,
        size: object.size,
        etag: object.md5,
        lastModified: Date.parse(object.lastModified ?? manifest.createdAt),
        headers: object.contentType !== undefined ? { contentType: object.contentType } : {},
        userMeta: object.metadata ?? {},
        checksumAlgorithm: undefined,
        checksumValue: undefined,
        checksumType: undefined,
        blobId: staged.blobId,
        partCount: undefined,
        storageClass: 'STANDARD',
        legalHold: false,
      };
      add(ctx, { seq: ++seq, row, parts: [], sealed: staged.sealed });
      totals.versions++;
      totals.objects++;
      totals.bytes += object.size;
    }
  }
}

function claim(used: Set<string>, entry: string): void {
  if (used.has(entry)) throw invalid(`the entry ${entry} is named twice`);
  used.add(entry);
}

function add(ctx: StagingContext, version: Parameters<RestoreScratch['add']>[0]): void {
  if (!ctx.scratch.add(version)) {
    throw invalid(`the version ${version.row.versionId} of ${JSON.stringify(version.row.key)} appears twice`);
  }
}

function rowOf(v: ArchivedVersion, bucket: string): NewObjectRow {
  return {
    bucket,
    key: v.key,
    versionId: v.versionId,
    isLatest: false,
    isDeleteMarker: v.deleteMarker,
    size: v.size,
    etag: v.etag,
    lastModified: Date.parse(v.lastModified),
    headers: v.headers,
    userMeta: v.userMeta,
    checksumAlgorithm: v.checksum?.algorithm,
    checksumValue: v.checksum?.value,
    checksumType: v.checksum?.type,
    blobId: undefined,
    partCount: v.parts?.length,
    storageClass: v.storageClass,
    tags: v.tags,
    retention: v.retention,
    legalHold: v.legalHold ?? false,
    acl: v.acl,
  };
}

/**
 * Re-encrypts one entry into blobs and verifies it. Each file blob is recorded in the scratch database before it is
 * committed, so a failed restore can remove every one. Throws InvalidArchive for a size or checksum mismatch.
 */
async function stageEntry(
  ctx: StagingContext,
  name: string,
  expected: Expected,
): Promise<{ blobId: string | undefined; parts: ObjectPartRow[]; sealed: Buffer | undefined }> {
  const declared = ctx.reader.sizeOf(name);
  if (declared === undefined) throw invalid(`the manifest names the entry ${name}, which the archive does not hold`);
  if (declared !== expected.size)
    throw invalid(`the entry ${name} holds ${declared} bytes but the manifest says ${expected.size}`);
  const sha256 = expected.sha256 !== undefined ? createHash('sha256') : undefined;
  const md5 = expected.md5 !== undefined ? createHash('md5') : undefined;
  const hashes = [sha256, md5].filter((h): h is Hash => h !== undefined);
  const reader = new SliceReader(await ctx.reader.open(name));
  const hashed = async function* (size: number, partMd5?: Hash): AsyncGenerator<Buffer> {
    for await (const chunk of reader.slice(size)) {
      for (const h of hashes) h.update(chunk);
      partMd5?.update(chunk);
      yield chunk;
    }
  };
  let result: { blobId: string | undefined; parts: ObjectPartRow[]; sealed: Buffer | undefined };
  try {
    if (expected.parts === undefined && expected.size <= INLINE_MAX_BYTES) {
      const chunks: Buffer[] = [];
      for await (const chunk of hashed(expected.size)) chunks.push(chunk);
      const staged = ctx.blobs.sealInline(Buffer.concat(chunks, expected.size));
      result = { blobId: staged.id, parts: [], sealed: staged.sealed };
    } else if (expected.parts === undefined) {
      result = {
        blobId: await commitBlob(ctx, await ctx.blobs.stage(hashed(expected.size), { signal: ctx.signal })),
        parts: [],
        sealed: undefined,
      };
    } else {
      const parts: ObjectPartRow[] = [];
      for (const part of expected.parts) {
        const partMd5 = createHash('md5');
        const blobId = await commitBlob(ctx, await ctx.blobs.stage(hashed(part.size, partMd5), { signal: ctx.signal }));
        if (partMd5.digest('hex') !== part.etag)
          throw invalid(`the entry ${name}: part ${part.partNumber} does not match its ETag in the manifest`);
        parts.push({ partNumber: part.partNumber, blobId, size: part.size, etag: part.etag, checksum: part.checksum });
      }
      result = { blobId: undefined, parts, sealed: undefined };
    }
    if (!(await reader.atEnd())) throw invalid(`the entry ${name} holds more bytes than the manifest says`);
  } catch (err) {
    if (err instanceof StreamShapeError) throw invalid(`the entry ${name}: ${err.message}`);
    throw err;
  }
  if (sha256 && sha256.digest('hex') !== expected.sha256)
    throw invalid(`the entry ${name} does not match its SHA-256 in the manifest`);
  if (md5 && md5.digest('hex') !== expected.md5)
    throw invalid(`the entry ${name} does not match its ETag (MD5) in the manifest`);
  return result;
}

async function commitBlob(ctx: StagingContext, staged: StagedBlob): Promise<string> {
  ctx.scratch.addBlob(staged.id);
  try {
    await staged.commit();
  } catch (err) {
    await staged.discard();
    throw err;
  }
  return staged.id;
}
