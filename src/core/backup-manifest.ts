/* eslint-disable max-lines -- the archive format's one validator: v1 and v2 checks share helpers and must agree */
// The backup archive's manifest (docs/backup-format.md): the types of manifest v2 (full fidelity: every bucket's
// configuration, every version in history order, with a SHA-256 per entry) and v1 (legacy: current-version bytes
// only), and their validation. Everything an archive says is checked here before a restore changes anything;
// every failure is AppError InvalidArchive (400) naming what is wrong.

import { validateAcl, type Acl } from './acl/acl.js';
import { BACKED_UP_PARTS, isTextPart, validateConfigPart, type BucketConfig } from './bucket-config-parts.js';
import {
  CHECKSUM_ALGORITHMS,
  isChecksumAlgorithm,
  isValidChecksumValue,
  type ChecksumAlgorithm,
  type ChecksumType,
} from './checksums.js';
import { AppError, isAppError } from './errors.js';
import { multipartEtag } from './etag.js';
import { isHeaderValue } from './header-text.js';
import { parseIso8601 } from './iso8601.js';
import { validateBucketName, validateObjectKey } from './names.js';
import type { ObjectRetention } from './object-lock.js';
import { validateTagSet, type TagSet } from './tagging.js';
import { checkUserMetaSize, isUserMetaName } from './user-metadata.js';
import { NULL_VERSION_ID, type VersioningState } from './versioning.js';
import { isUuidShaped } from '../lib/ids.js';

export const MANIFEST_ENTRY = 'manifest.json';
/** Versions per index entry: bounds what a writer holds in memory (one chunk of lines) whatever the instance's size. */
export const INDEX_CHUNK_VERSIONS = 1000;

export type BackupKind = 'instance' | 'bucket';

/** A bucket's configuration as the archive carries it: the document the bucket row stores, its backed-up parts. */
export type ArchivedBucketConfig = BucketConfig;

export interface ArchivedBucket {
  name: string;
  /** ISO 8601. */
  createdAt: string;
  versioning: VersioningState;
  objectLock: boolean;
  config: ArchivedBucketConfig;
  /** Versions and delete markers of this bucket in the archive. */
  versionCount: number;
}

export interface ManifestV2 {
  version: 2;
  kind: BackupKind;
  /** ISO 8601: the point in time the snapshot shows. */
  createdAt: string;
  storeVersion: string;
  /**
   * Written by Stores that keep ACLs (issue 28): a bucket without `config.ownershipControls` had none (ObjectWriter).
   * Absent in older archives, whose buckets all behaved as BucketOwnerEnforced: parseManifest gives them that.
   */
  acls?: true;
  buckets: ArchivedBucket[];
  /** The index entries (JSON Lines of ArchivedVersion), in history order. */
  indexes: string[];
  totals: { versions: number; entries: number; bytes: number };
}

export interface ArchivedPart {
  partNumber: number;
  size: number;
  etag: string;
  checksum?: string;
}

/** One line of an index entry: an object version or a delete marker. */
export interface ArchivedVersion {
  bucket: string;
  key: string;
  versionId: string;
  deleteMarker: boolean;
  /** ISO 8601 with milliseconds. */
  lastModified: string;
  size: number;
  etag: string;
  headers: Record<string, string>;
  userMeta: Record<string, string>;
  checksum?: { algorithm: ChecksumAlgorithm; value: string; type?: ChecksumType };
  storageClass: string;
  tags?: TagSet;
  retention?: ObjectRetention;
  legalHold?: boolean;
  /** The version's ACL (absent: the owner's FULL_CONTROL). */
  acl?: Acl;
  /** Multipart objects: the part boundaries (the bytes are one entry; each part becomes its own blob again). */
  parts?: ArchivedPart[];
  /** The data entry with the decrypted bytes (absent for a delete marker). */
  entry?: string;
  /** Hex SHA-256 of the entry's bytes. */
  sha256?: string;
}

/** Manifest v1 (the earlier format): current versions only, no configuration, an MD5 per entry. */
export interface ManifestV1 {
  version: 1;
  kind: BackupKind;
  createdAt: string;
  buckets: { name: string; objects: V1Object[] }[];
}

export interface V1Object {
  key: string;
  size: number;
  /** Hex MD5 of the bytes: the object's ETag. */
  md5: string;
  contentType?: string;
  lastModified?: string;
  metadata?: Record<string, string>;
  file: string;
}

export type Manifest = ManifestV1 | ManifestV2;

const HEADER_NAMES = new Set([
  'contentType',
  'contentEncoding',
  'contentDisposition',
  'contentLanguage',
  'cacheControl',
  'expires',
]);
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const HEX_MD5 = /^[0-9a-f]{32}$/;

export function invalid(message: string): AppError {
  return new AppError('InvalidArchive', { message: `Invalid archive: ${message}` });
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(obj: Json, field: string, where: string): string {
  const value = obj[field];
  if (typeof value !== 'string') throw invalid(`${where}.${field} must be a string`);
  return value;
}

function count(obj: Json, field: string, where: string): number {
  const value = obj[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalid(`${where}.${field} must be a non-negative integer`);
  return value;
}

function isoDate(obj: Json, field: string, where: string): string {
  const value = str(obj, field, where);
  if (parseIso8601(value) === undefined) throw invalid(`${where}.${field} must be an ISO 8601 timestamp`);
  return value;
}

/**
 * An object of strings that are served as headers (system headers, or x-amz-meta-<name> when `allowed` is absent):
 * each value must be a header value and each metadata name a header token, or every GET of the restored object
 * would fail.
 */
function stringMap(value: unknown, where: string, allowed?: Set<string>): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw invalid(`${where} must be an object of strings`);
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw invalid(`${where}.${name} must be a string`);
    if (allowed && !allowed.has(name)) throw invalid(`${where}.${name} is not a known field`);
    if (!allowed && !isUserMetaName(name))
      throw invalid(`${where}: ${JSON.stringify(name.slice(0, 64))} is not a valid metadata name`);
    if (!isHeaderValue(v)) throw invalid(`${where}.${name.slice(0, 64)} holds characters an HTTP header cannot carry`);
  }
  if (!allowed) checked(where, () => checkUserMetaSize(value as Record<string, string>));
  return value as Record<string, string>;
}

/**
 * Runs a core validator, turning its AppError (MalformedXML, InvalidTag, ...) into InvalidArchive naming where. The
 * validators expect the typed shapes the S3 and admin planes hand them; an archive's JSON can be any shape, so the
 * TypeError a wrong one causes (`{"lifecycle": {}}` has no rules) is InvalidArchive too, not a 500.
 */
function checked(where: string, validate: () => void): void {
  try {
    validate();
  } catch (err) {
    if (isAppError(err)) throw invalid(`${where}: ${err.message}`);
    if (err instanceof TypeError) throw invalid(`${where} does not have the shape of that configuration`);
    throw err;
  }
}

/** A data entry name a manifest may use: relative, `/`-separated, no `.`/`..` or empty segments, no backslash. */
export function isSafeEntryName(name: string): boolean {
  if (name.length === 0 || name.length > 4096 || name.includes('\\') || name.startsWith('/') || /^[A-Za-z]:/.test(name))
    return false;
  if (/[\u0000-\u001f\u007f]/.test(name)) return false;
  return name.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

function entryName(obj: Json, field: string, where: string): string {
  const name = str(obj, field, where);
  if (!isSafeEntryName(name) || name === MANIFEST_ENTRY) throw invalid(`${where}.${field} is not a safe entry name`);
  return name;
}

/** Validates a bucket's archived configuration with the same rules the S3 API applies, for the bucket `name`. */
function bucketConfig(value: unknown, name: string, where: string): ArchivedBucketConfig {
  if (!isObject(value)) throw invalid(`${where}.config must be an object`);
  const known = new Set<string>(BACKED_UP_PARTS);
  for (const field of Object.keys(value))
    if (!known.has(field)) throw invalid(`${where}.config.${field} is not a known part`);
  // An archive's JSON may hold any shape where a part's model is expected: checked() turns what the validator then
  // throws into InvalidArchive.
  const config = value as ArchivedBucketConfig;
  for (const part of BACKED_UP_PARTS) {
    const partValue = config[part];
    if (partValue === undefined) continue;
    if (isTextPart(part) && typeof partValue !== 'string') throw invalid(`${where}.config.${part} must be a string`);
    checked(`${where}.config.${part}`, () => validateConfigPart(part, partValue, name));
  }
  return config;
}

function archivedBucket(value: unknown, where: string): ArchivedBucket {
  if (!isObject(value)) throw invalid(`${where} must be an object`);
  const name = str(value, 'name', where);
  checked(`${where}.name`, () => validateBucketName(name));
  const versioning = value['versioning'];
  if (versioning !== 'Unversioned' && versioning !== 'Enabled' && versioning !== 'Suspended') {
    throw invalid(`${where}.versioning must be Unversioned, Enabled or Suspended`);
  }
  const objectLock = value['objectLock'];
  if (typeof objectLock !== 'boolean') throw invalid(`${where}.objectLock must be a boolean`);
  const config = bucketConfig(value['config'], name, where);
  if (objectLock !== (config.objectLock !== undefined))
    throw invalid(`${where}: objectLock and config.objectLock disagree`);
  if (objectLock && versioning !== 'Enabled')
    throw invalid(`${where}: a bucket with object lock must have versioning Enabled`);
  return {
    name,
    createdAt: isoDate(value, 'createdAt', where),
    versioning,
    objectLock,
    config,
    versionCount: count(value, 'versionCount', where),
  };
}

/**
 * Parses and validates manifest.json (v1 or v2). Throws InvalidArchive for bad JSON, an unknown version, a bad
 * field, a bucket configuration the S3 API would refuse, or a bucket named twice.
 */
export function parseManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid('manifest.json is not JSON');
  }
  if (!isObject(raw)) throw invalid('manifest.json must be a JSON object');
  const kind = raw['kind'] ?? 'instance';
  if (kind !== 'instance' && kind !== 'bucket') throw invalid('manifest.kind must be instance or bucket');
  if (!Array.isArray(raw['buckets'])) throw invalid('manifest.buckets must be an array');
  const createdAt = isoDate(raw, 'createdAt', 'manifest');
  let manifest: Manifest;
  if (raw['version'] === 1) {
    manifest = {
      version: 1,
      kind,
      createdAt,
      buckets: raw['buckets'].map((b, i) => v1Bucket(b, `manifest.buckets[${i}]`)),
    };
  } else if (raw['version'] === 2) {
    const indexes = raw['indexes'];
    if (!Array.isArray(indexes)) throw invalid('manifest.indexes must be an array');
    const totals = raw['totals'];
    if (!isObject(totals)) throw invalid('manifest.totals must be an object');
    const acls = raw['acls'];
    if (acls !== undefined && acls !== true) throw invalid('manifest.acls must be true when present');
    const buckets = raw['buckets'].map((b, i) => archivedBucket(b, `manifest.buckets[${i}]`));
    // An archive from before ACLs: every bucket behaved as BucketOwnerEnforced, and restores as it.
    if (acls !== true) for (const bucket of buckets) bucket.config.ownershipControls ??= 'BucketOwnerEnforced';
    manifest = {
      version: 2,
      kind,
      createdAt,
      storeVersion: str(raw, 'storeVersion', 'manifest'),
      ...(acls === true ? { acls } : {}),
      buckets,
      indexes: indexes.map((_, i) => entryName(indexes as unknown as Json, String(i), 'manifest.indexes')),
      totals: {
        versions: count(totals, 'versions', 'manifest.totals'),
        entries: count(totals, 'entries', 'manifest.totals'),
        bytes: count(totals, 'bytes', 'manifest.totals'),
      },
    };
  } else {
    throw invalid('manifest.version must be 1 or 2');
  }
  const names = new Set<string>();
  for (const bucket of manifest.buckets) {
    if (names.has(bucket.name)) throw invalid(`bucket ${bucket.name} is listed twice`);
    names.add(bucket.name);
  }
  if (manifest.kind === 'bucket' && manifest.buckets.length !== 1)
    throw invalid('a bucket archive must hold exactly one bucket');
  return manifest;
}

function v1Bucket(value: unknown, where: string): ManifestV1['buckets'][number] {
  if (!isObject(value)) throw invalid(`${where} must be an object`);
  const name = str(value, 'name', where);
  checked(`${where}.name`, () => validateBucketName(name));
  const objects = value['objects'];
  if (!Array.isArray(objects)) throw invalid(`${where}.objects must be an array`);
  return {
    name,
    objects: objects.map((o, i): V1Object => {
      const at = `${where}.objects[${i}]`;
      if (!isObject(o)) throw invalid(`${at} must be an object`);
      const key = str(o, 'key', at);
      checked(`${at}.key`, () => validateObjectKey(key));
      const md5 = str(o, 'md5', at);
      if (!HEX_MD5.test(md5)) throw invalid(`${at}.md5 must be 32 lowercase hex digits`);
      const contentType = o['contentType'];
      if (contentType !== undefined && (typeof contentType !== 'string' || !isHeaderValue(contentType))) {
        throw invalid(`${at}.contentType must be a string an HTTP header can carry`);
      }
      return {
        key,
        size: count(o, 'size', at),
        md5,
        file: entryName(o, 'file', at),
        ...(contentType !== undefined ? { contentType } : {}),
        ...(o['lastModified'] !== undefined ? { lastModified: isoDate(o, 'lastModified', at) } : {}),
        ...(o['metadata'] !== undefined ? { metadata: stringMap(o['metadata'], `${at}.metadata`) } : {}),
      };
    }),
  };
}

/**
 * Parses and validates one index line against the manifest's buckets. Throws InvalidArchive for malformed JSON,
 * an unknown bucket, a bad key or version id, inconsistent sizes or parts, lock settings on a bucket without object
 * lock, or a version of a delete marker that claims bytes.
 */
export function parseVersionLine(
  line: string,
  buckets: ReadonlyMap<string, ArchivedBucket>,
  where: string,
): ArchivedVersion {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw invalid(`${where} is not JSON`);
  }
  if (!isObject(raw)) throw invalid(`${where} must be a JSON object`);
  const bucketName = str(raw, 'bucket', where);
  const bucket = buckets.get(bucketName);
  if (!bucket) throw invalid(`${where}.bucket names a bucket the manifest does not list`);
  const key = str(raw, 'key', where);
  checked(`${where}.key`, () => validateObjectKey(key));
  const versionId = str(raw, 'versionId', where);
  if (versionId !== NULL_VERSION_ID && !isUuidShaped(versionId))
    throw invalid(`${where}.versionId must be null or a UUID`);
  if (bucket.versioning === 'Unversioned' && versionId !== NULL_VERSION_ID)
    throw invalid(`${where}: an unversioned bucket holds only null versions`);
  const deleteMarker = raw['deleteMarker'];
  if (typeof deleteMarker !== 'boolean') throw invalid(`${where}.deleteMarker must be a boolean`);
  const size = count(raw, 'size', where);
  const etag = str(raw, 'etag', where);
  const storageClass = str(raw, 'storageClass', where);
  if (!/^[A-Z_]{1,32}$/.test(storageClass)) throw invalid(`${where}.storageClass is not a storage class`);
  const version: ArchivedVersion = {
    bucket: bucketName,
    key,
    versionId,
    deleteMarker,
    lastModified: isoDate(raw, 'lastModified', where),
    size,
    etag,
    headers: stringMap(raw['headers'], `${where}.headers`, HEADER_NAMES),
    userMeta: stringMap(raw['userMeta'], `${where}.userMeta`),
    storageClass,
  };
  if (raw['tags'] !== undefined) {
    const tags = raw['tags'] as TagSet;
    if (!Array.isArray(tags)) throw invalid(`${where}.tags must be an array`);
    checked(`${where}.tags`, () => validateTagSet(tags, 'object'));
    version.tags = tags;
  }
  lockFields(raw, version, { bucket, where });
  if (raw['acl'] !== undefined) {
    if (deleteMarker) throw invalid(`${where}: a delete marker has no ACL`);
    const acl = raw['acl'];
    checked(`${where}.acl`, () => void validateAcl(acl));
    version.acl = acl as Acl;
  }
  if (deleteMarker) {
    if (size !== 0 || raw['entry'] !== undefined || raw['parts'] !== undefined)
      throw invalid(`${where}: a delete marker has no bytes`);
    if (etag !== '') throw invalid(`${where}: a delete marker has no ETag`);
    return version;
  }
  version.entry = entryName(raw, 'entry', where);
  const sha256 = str(raw, 'sha256', where);
  if (!HEX_SHA256.test(sha256)) throw invalid(`${where}.sha256 must be 64 lowercase hex digits`);
  version.sha256 = sha256;
  if (raw['checksum'] !== undefined) version.checksum = checksumOf(raw['checksum'], `${where}.checksum`);
  if (raw['parts'] !== undefined)
    version.parts = partsOf(raw['parts'], `${where}.parts`, { size, algorithm: version.checksum?.algorithm });
  checkEtag(version, where);
  if (version.checksum?.type === 'COMPOSITE' && version.parts === undefined)
    throw invalid(`${where}.checksum: a COMPOSITE checksum needs parts`);
  return version;
}

/**
 * An ETag as a PUT or a multipart completion makes it: the hex MD5 of the bytes (which the restore verifies as it
 * reads them), or the MD5 of the parts' MD5s and their count, which must agree with the parts listed. Anything else
 * (quotes, CR/LF) would be sent back in every ETag header of the object.
 */
function checkEtag(version: ArchivedVersion, where: string): void {
  if (version.parts === undefined) {
    if (!HEX_MD5.test(version.etag))
      throw invalid(`${where}.etag must be 32 lowercase hex digits (the MD5 of the bytes)`);
    return;
  }
  const expected = multipartEtag(version.parts.map((p) => Buffer.from(p.etag, 'hex')));
  if (version.etag !== expected) throw invalid(`${where}.etag must be the multipart ETag of its parts (${expected})`);
}

function lockFields(raw: Json, version: ArchivedVersion, at: { bucket: ArchivedBucket; where: string }): void {
  const { bucket, where } = at;
  const retention = raw['retention'];
  const legalHold = raw['legalHold'];
  if (legalHold !== undefined && typeof legalHold !== 'boolean') throw invalid(`${where}.legalHold must be a boolean`);
  if (retention !== undefined) {
    if (!isObject(retention) || (retention['mode'] !== 'GOVERNANCE' && retention['mode'] !== 'COMPLIANCE')) {
      throw invalid(`${where}.retention.mode must be GOVERNANCE or COMPLIANCE`);
    }
    version.retention = {
      mode: retention['mode'],
      retainUntilDate: isoDate(retention, 'retainUntilDate', `${where}.retention`),
    };
  }
  if (legalHold === true) version.legalHold = true;
  if ((version.retention !== undefined || version.legalHold) && !bucket.objectLock) {
    throw invalid(`${where}: retention or legal hold in a bucket without object lock`);
  }
}

/**
 * A flexible checksum as S3 computes it: canonical base64 of the algorithm's digest, followed for a COMPOSITE one by
 * `-` and the part count (checked against the parts by the caller).
 */
function checksumOf(value: unknown, where: string): NonNullable<ArchivedVersion['checksum']> {
  if (!isObject(value)) throw invalid(`${where} must be an object`);
  const algorithm = str(value, 'algorithm', where);
  if (!isChecksumAlgorithm(algorithm)) throw invalid(`${where}.algorithm is not a checksum algorithm`);
  const type = value['type'];
  if (type !== undefined && type !== 'FULL_OBJECT' && type !== 'COMPOSITE')
    throw invalid(`${where}.type must be FULL_OBJECT or COMPOSITE`);
  const text = str(value, 'value', where);
  const digest = type === 'COMPOSITE' ? /^([^-]*)-[1-9]\d{0,4}$/.exec(text)?.[1] : text;
  if (digest === undefined || !isValidChecksumValue(algorithm, digest)) {
    throw invalid(`${where}.value is not a ${type === 'COMPOSITE' ? 'COMPOSITE ' : ''}${algorithm} value`);
  }
  return { algorithm, value: text, ...(type !== undefined ? { type } : {}) };
}

/** A part's checksum: a digest of the object's algorithm, or of any algorithm when the object names none. */
function isPartChecksum(value: string, algorithm: ChecksumAlgorithm | undefined): boolean {
  const algorithms = algorithm === undefined ? CHECKSUM_ALGORITHMS : [algorithm];
  return algorithms.some((alg) => isValidChecksumValue(alg, value));
}

function partsOf(
  value: unknown,
  where: string,
  object: { size: number; algorithm: ChecksumAlgorithm | undefined },
): ArchivedPart[] {
  const { size, algorithm } = object;
  if (!Array.isArray(value) || value.length === 0 || value.length > 10_000)
    throw invalid(`${where} must be an array of 1 to 10,000 parts`);
  let total = 0;
  let previous = 0;
  const parts = value.map((p, i): ArchivedPart => {
    const at = `${where}[${i}]`;
    if (!isObject(p)) throw invalid(`${at} must be an object`);
    const partNumber = count(p, 'partNumber', at);
    if (partNumber <= previous || partNumber > 10_000)
      throw invalid(`${at}.partNumber must increase, from 1 to 10,000`);
    previous = partNumber;
    const partSize = count(p, 'size', at);
    total += partSize;
    const checksum = p['checksum'];
    if (checksum !== undefined && (typeof checksum !== 'string' || !isPartChecksum(checksum, algorithm))) {
      throw invalid(`${at}.checksum is not a ${algorithm ?? 'checksum'} value`);
    }
    const etag = str(p, 'etag', at);
    if (!HEX_MD5.test(etag)) throw invalid(`${at}.etag must be 32 lowercase hex digits (the MD5 of the part)`);
    return { partNumber, size: partSize, etag, ...(checksum !== undefined ? { checksum } : {}) };
  });
  if (total !== size) throw invalid(`${where}: the part sizes do not add up to the object's size`);
  return parts;
}
