// The objects table's column map: one list of its columns, from which the SELECT lists of a full row and of a point
// lookup, the decoder's positions and the INSERT are generated (object-columns.test.ts checks them against the table).

import type { Acl } from '../../core/acl/acl.js';
import type { ChecksumAlgorithm, ChecksumType } from '../../core/checksums.js';
import type { ObjectRetention, RetentionMode } from '../../core/object-lock.js';
import type { TagSet } from '../../core/tagging.js';
import { retentionOf, tagsOf } from './lock-columns.js';

/** System metadata kept with each version, returned on GET/HEAD. */
export interface ObjectHeaders {
  contentType?: string;
  contentEncoding?: string;
  contentDisposition?: string;
  contentLanguage?: string;
  cacheControl?: string;
  expires?: string;
}

/** Tier residency of a version (docs/replication.md "Tiering"). */
export type TierState = 'stub' | 'restored';

export interface ObjectRow {
  id: number;
  bucket: string;
  key: string;
  versionId: string;
  isLatest: boolean;
  isDeleteMarker: boolean;
  size: number;
  /** Hex MD5, or `<hex>-N` for multipart objects; never quoted. */
  etag: string;
  lastModified: number;
  headers: ObjectHeaders;
  userMeta: Record<string, string>;
  checksumAlgorithm: ChecksumAlgorithm | undefined;
  checksumValue: string | undefined;
  checksumType: ChecksumType | undefined;
  /** Set for objects written in one piece; multipart objects have parts instead. */
  blobId: string | undefined;
  partCount: number | undefined;
  /**
   * STANDARD, a lifecycle transition's class, or what a restored archive names (any `[A-Z_]{1,32}`, which
   * core/backup-manifest.ts accepts): so a string, not a union.
   */
  storageClass: string;
  /** Object tags (absent: none). */
  tags?: TagSet | undefined;
  /** Object lock retention of this version (absent: none). */
  retention?: ObjectRetention | undefined;
  legalHold?: boolean | undefined;
  /**
   * Tier residency: 'stub' when the bytes live only on the remote target, 'restored' when they are local again and
   * the remote copy is kept until `tierRestoredUntil`; absent when local only.
   */
  tierState?: TierState | undefined;
  /** The remote copy's key under the reserved tier prefix (with tierState). */
  tierKey?: string | undefined;
  /** Epoch ms: a restored version goes back to a stub after this. */
  tierRestoredUntil?: number | undefined;
  /** Hex SHA-256 of the plaintext, taken when the version was tiered: rehydration verifies it. */
  tierSha256?: string | undefined;
  /** The version's ACL (absent: the owner's FULL_CONTROL). */
  acl?: Acl | undefined;
}

export type NewObjectRow = Omit<ObjectRow, 'id'>;

/** One objects row as SQLite holds it, column by column (migrations.ts creates and extends the table). */
interface ObjectColumns {
  id: number;
  bucket: string;
  key: string;
  version_id: string;
  is_latest: 0 | 1;
  is_delete_marker: 0 | 1;
  size: number;
  etag: string;
  last_modified: number;
  headers: string | null;
  user_meta: string | null;
  checksum_algorithm: ChecksumAlgorithm | null;
  checksum_value: string | null;
  checksum_type: ChecksumType | null;
  blob_id: string | null;
  part_count: number | null;
  storage_class: string;
  tags: string | null;
  retention_mode: RetentionMode | null;
  retain_until: string | null;
  legal_hold: 0 | 1;
  tier_key: string | null;
  tier_state: TierState | null;
  tier_restored_until: number | null;
  tier_sha256: string | null;
  acl: string | null;
}

/**
 * Every column of objects, in the table's order (so `SELECT *` reads them in this order too). Full rows are read as
 * arrays (better-sqlite3 raw mode): building a row object with one named property per column cost more than the
 * SQLite lookup itself in a HEAD profile (docs/performance.md).
 */
const COLUMNS = [
  'id',
  'bucket',
  'key',
  'version_id',
  'is_latest',
  'is_delete_marker',
  'size',
  'etag',
  'last_modified',
  'headers',
  'user_meta',
  'checksum_algorithm',
  'checksum_value',
  'checksum_type',
  'blob_id',
  'part_count',
  'storage_class',
  'tags',
  'retention_mode',
  'retain_until',
  'legal_hold',
  'tier_key',
  'tier_state',
  'tier_restored_until',
  'tier_sha256',
  'acl',
] as const satisfies readonly (keyof ObjectColumns)[];

type Column = (typeof COLUMNS)[number];
/** Compile-time: COLUMNS lists every column of ObjectColumns (object-columns.test.ts checks both against the table). */
export type ListsEveryColumn = AssertTrue<Exclude<keyof ObjectColumns, Column> extends never ? true : false>;
type AssertTrue<T extends true> = T;

/** A full row as a raw statement returns it: the value of each column of COLUMNS, by position. */
export type ObjectValues = ValuesOf<typeof COLUMNS>;
type ValuesOf<T extends readonly Column[]> = {
  -readonly [I in keyof T]: T[I] extends Column ? ObjectColumns[T[I]] : never;
};

/** A point lookup's row (OBJECT_LOOKUP_SELECT): a full row's positions, with NULL for the caller's bucket and key. */
export type LookupValues = LookupValuesOf<typeof COLUMNS>;
type LookupValuesOf<T extends readonly Column[]> = {
  -readonly [I in keyof T]: T[I] extends 'bucket' | 'key' ? null : T[I] extends Column ? ObjectColumns[T[I]] : never;
};

/** Column name -> its position in COLUMNS, as a literal type, so `v[AT.size]` is typed `number`. */
type Positions<T extends readonly string[]> = {
  [I in keyof T as I extends `${number}` ? T[I] & string : never]: I extends `${infer N extends number}` ? N : never;
};

function positionsOf<const T extends readonly string[]>(columns: T): Positions<T> {
  return Object.fromEntries(columns.map((column, i) => [column, i])) as Positions<T>;
}

const AT = positionsOf(COLUMNS);

/** The SELECT list of a full row: `SELECT ${OBJECT_SELECT} FROM objects ...`, read with `.raw(true)`. */
export const OBJECT_SELECT = COLUMNS.join(', ');

/**
 * The SELECT list of a point lookup by bucket and key (the HEAD and GET path): NULL in place of the bucket and key,
 * which are the caller's own arguments and need not be read back; every other column at its full-row position.
 */
export const OBJECT_LOOKUP_SELECT = COLUMNS.map((c) => (c === 'bucket' || c === 'key' ? 'NULL' : c)).join(', ');

/** Columns an insert writes: all but the row id (SQLite assigns it) and the tier columns (tiering sets them later). */
type Inserted = Exclude<Column, 'id' | `tier_${string}`>;
const INSERTED = COLUMNS.filter((c): c is Inserted => c !== 'id' && !c.startsWith('tier_'));
type InsertedColumns = Pick<ObjectColumns, Inserted>;

/** The insert statement; bound positionally with objectInsertValues(). */
export const OBJECT_INSERT = `INSERT INTO objects (${INSERTED.join(', ')}) VALUES (${INSERTED.map(() => '?').join(', ')})`;

function parseJson<T>(text: string | null, empty: T): T {
  return text ? (JSON.parse(text) as T) : empty;
}

function emptyToNull(record: object): string | null {
  return Object.keys(record).length > 0 ? JSON.stringify(record) : null;
}

function aclOf(text: string | null): Acl | undefined {
  return text === null ? undefined : (JSON.parse(text) as Acl);
}

/** A full row (OBJECT_SELECT) as the domain model. */
export function objectRowOf(v: ObjectValues): ObjectRow {
  return decode(v, v[AT.bucket], v[AT.key]);
}

/** A point lookup's row (OBJECT_LOOKUP_SELECT) of `bucket` and `key` as the domain model. */
export function lookedUpRowOf(v: LookupValues, bucket: string, key: string): ObjectRow {
  return decode(v, bucket, key);
}

/**
 * Written out field by field (no loop over the columns): it runs for every GET and HEAD, and an object literal of
 * fixed shape is what V8 builds fastest.
 */
function decode(v: ObjectValues | LookupValues, bucket: string, key: string): ObjectRow {
  const tierState = v[AT.tier_state];
  return {
    id: v[AT.id],
    bucket,
    key,
    versionId: v[AT.version_id],
    isLatest: v[AT.is_latest] === 1,
    isDeleteMarker: v[AT.is_delete_marker] === 1,
    size: v[AT.size],
    etag: v[AT.etag],
    lastModified: v[AT.last_modified],
    headers: parseJson<ObjectHeaders>(v[AT.headers], {}),
    userMeta: parseJson<Record<string, string>>(v[AT.user_meta], {}),
    checksumAlgorithm: v[AT.checksum_algorithm] ?? undefined,
    checksumValue: v[AT.checksum_value] ?? undefined,
    checksumType: v[AT.checksum_type] ?? undefined,
    blobId: v[AT.blob_id] ?? undefined,
    partCount: v[AT.part_count] ?? undefined,
    storageClass: v[AT.storage_class],
    tags: tagsOf(v[AT.tags]),
    retention: retentionOf(v[AT.retention_mode], v[AT.retain_until]),
    legalHold: v[AT.legal_hold] === 1,
    acl: aclOf(v[AT.acl]),
    ...(tierState === null
      ? {}
      : {
          tierState,
          tierKey: v[AT.tier_key] ?? undefined,
          tierRestoredUntil: v[AT.tier_restored_until] ?? undefined,
          tierSha256: v[AT.tier_sha256] ?? undefined,
        }),
  };
}

/** The columns an insert writes, by name: typed against the table, so a field cannot land in the wrong column. */
function insertedColumnsOf(row: NewObjectRow): InsertedColumns {
  return {
    bucket: row.bucket,
    key: row.key,
    version_id: row.versionId,
    is_latest: row.isLatest ? 1 : 0,
    is_delete_marker: row.isDeleteMarker ? 1 : 0,
    size: row.size,
    etag: row.etag,
    last_modified: row.lastModified,
    headers: emptyToNull(row.headers),
    user_meta: emptyToNull(row.userMeta),
    checksum_algorithm: row.checksumAlgorithm ?? null,
    checksum_value: row.checksumValue ?? null,
    checksum_type: row.checksumType ?? null,
    blob_id: row.blobId ?? null,
    part_count: row.partCount ?? null,
    storage_class: row.storageClass,
    tags: row.tags && row.tags.length > 0 ? JSON.stringify(row.tags) : null,
    retention_mode: row.retention?.mode ?? null,
    retain_until: row.retention?.retainUntilDate ?? null,
    legal_hold: row.legalHold ? 1 : 0,
    acl: row.acl ? JSON.stringify(row.acl) : null,
  };
}

/** OBJECT_INSERT's parameters for a row, in its column order (positional binding: about 4 µs cheaper than named). */
export function objectInsertValues(row: NewObjectRow): InsertedColumns[keyof InsertedColumns][] {
  const columns = insertedColumnsOf(row);
  return INSERTED.map((column) => columns[column]);
}

/** For object-columns.test.ts: the lists the statements are generated from. */
export const COLUMN_LISTS = { all: COLUMNS, inserted: INSERTED } as const;
