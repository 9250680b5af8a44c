// The crash loop's model of acknowledged state: per bucket and key, the versions in commit order, each with the
// content hash the client sent. Acknowledged operations apply to it at once; an operation cut off by a kill stays
// "unknown" until the database is read after the kill, which must show it either wholly applied or not at all
// (resolve()). The model also counts the webhook events its committed history implies.

import type { VersionRow } from './data-dir-inspect.js';

export type Tags = Record<string, string>;

export interface ModelVersion {
  /** 'null' in an unversioned bucket. */
  vid: string;
  marker: boolean;
  /** SHA-256 and MD5 of the content (empty for a marker). */
  sha: string;
  md5: string;
  /** The S3 ETag: the MD5, or the multipart form. */
  etag: string;
  size: number;
  tags: Tags;
}

/** The content a write stores. */
export interface Content {
  sha: string;
  md5: string;
  etag: string;
  size: number;
  tags: Tags;
  type: 'object.created' | 'multipart.completed';
}

/** What one operation does to one key. */
export type Effect =
  | { t: 'put'; content: Content }
  | { t: 'delete' }
  | { t: 'deleteVersion'; vid: string }
  | { t: 'tag'; vid: string; tags: Tags };

export interface BucketModel {
  name: string;
  versioned: boolean;
  keys: Map<string, ModelVersion[]>;
}

export class CrashModel {
  readonly buckets = new Map<string, BucketModel>();
  /** Expected webhook events (signature -> count), from the committed history. */
  readonly events = new Map<string, number>();
  /** Versions (bucket/key/vid) written or changed since the last byte-exact check. */
  readonly dirty = new Set<string>();

  addBucket(name: string, versioned: boolean, keys: string[]): void {
    this.buckets.set(name, { name, versioned, keys: new Map(keys.map((k) => [k, []])) });
  }

  versions(bucket: string, key: string): ModelVersion[] {
    return this.bucket(bucket).keys.get(key) ?? [];
  }

  /** The current version, if the key exists (not a delete marker). */
  current(bucket: string, key: string): ModelVersion | undefined {
    const last = this.versions(bucket, key).at(-1);
    return last && !last.marker ? last : undefined;
  }

  private bucket(name: string): BucketModel {
    const b = this.buckets.get(name);
    if (!b) throw new Error(`no bucket ${name} in the model`);
    return b;
  }

  /**
   * Applies a committed effect. `vid` is the version id the server gave a new version or delete marker (from the
   * response, or from the database for an operation the kill cut off).
   */
  apply({ bucket, key }: { bucket: string; key: string }, effect: Effect, vid?: string): void {
    const b = this.bucket(bucket);
    const list = [...(b.keys.get(key) ?? [])];
    const event = (type: string, v: string, { etag, size }: { etag: string; size: number }): void => {
      const sig = eventSignature({ type, bucket, key, versionId: b.versioned ? v : undefined, etag, size });
      this.events.set(sig, (this.events.get(sig) ?? 0) + 1);
    };
    switch (effect.t) {
      case 'put': {
        const version: ModelVersion = { vid: b.versioned ? required(vid) : 'null', marker: false, ...effect.content };
        if (!b.versioned) list.length = 0;
        list.push(version);
        this.dirty.add(`${bucket}/${key}/${version.vid}`);
        event(effect.content.type, version.vid, { etag: version.etag, size: version.size });
        break;
      }
      case 'delete':
        if (b.versioned) {
          const marker = { vid: required(vid), marker: true, sha: '', md5: '', etag: '', size: 0, tags: {} };
          list.push(marker);
          event('object.deleted', marker.vid, { etag: '', size: 0 });
        } else if (list.length > 0) {
          event('object.deleted', 'null', { etag: (list[0] as ModelVersion).etag, size: 0 });
          list.length = 0;
        }
        break;
      case 'deleteVersion': {
        const i = list.findIndex((v) => v.vid === effect.vid);
        if (i >= 0) {
          event('object.deleted', effect.vid, { etag: (list[i] as ModelVersion).etag, size: 0 });
          list.splice(i, 1);
        }
        break;
      }
      case 'tag': {
        const i = list.findIndex((v) => v.vid === effect.vid);
        if (i >= 0) {
          list[i] = { ...(list[i] as ModelVersion), tags: effect.tags };
          this.dirty.add(`${bucket}/${key}/${effect.vid}:tags`);
        }
        break;
      }
    }
    b.keys.set(key, list);
  }

  /**
   * Resolves what the database shows for a key against the model and the operation that was cut off on it, if any:
   * the rows must equal the model (the operation did not commit) or the model with the whole effect applied (it
   * did). Applies the effect in the second case. Returns 'none' | 'applied', or a description of the mismatch.
   */
  resolve(
    { bucket, key }: { bucket: string; key: string },
    rows: readonly VersionRow[],
    unknown: Effect | undefined,
  ): 'none' | 'applied' | string {
    const model = this.versions(bucket, key);
    if (sameVersions(rows, model)) return 'none';
    if (unknown) {
      const newVid = rows.at(-1)?.versionId;
      const trial = new CrashModel();
      trial.addBucket(bucket, this.bucket(bucket).versioned, []);
      trial.bucket(bucket).keys.set(key, [...model]);
      trial.apply({ bucket, key }, unknown, newVid);
      if (sameVersions(rows, trial.versions(bucket, key))) {
        this.apply({ bucket, key }, unknown, newVid);
        return 'applied';
      }
    }
    return `rows ${describeRows(rows)} vs model ${describeModel(model)}${unknown ? ` with unknown ${JSON.stringify(unknown)}` : ''}`;
  }
}

export function eventSignature(e: {
  type: string;
  bucket: string;
  key: string;
  versionId?: string | undefined;
  etag: string;
  size: number;
}): string {
  return `${e.type}|${e.bucket}|${e.key}|${e.versionId ?? '-'}|${e.etag}|${e.size}`;
}

/** Tags compared as sorted key=value lists. */
export function tagsText(tags: Tags): string {
  return Object.entries(tags)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function sameVersions(rows: readonly VersionRow[], model: readonly ModelVersion[]): boolean {
  return (
    rows.length === model.length &&
    rows.every((r, i) => {
      const m = model[i] as ModelVersion;
      return (
        r.versionId === m.vid &&
        r.isDeleteMarker === m.marker &&
        r.etag === m.etag &&
        r.size === m.size &&
        tagsText(r.tags) === tagsText(m.tags)
      );
    })
  );
}

function describeRows(rows: readonly VersionRow[]): string {
  return JSON.stringify(
    rows.map((r) => [r.versionId.slice(-6), r.isDeleteMarker ? 'DM' : r.etag.slice(0, 8), r.size, tagsText(r.tags)]),
  );
}

function describeModel(model: readonly ModelVersion[]): string {
  return JSON.stringify(
    model.map((m) => [m.vid.slice(-6), m.marker ? 'DM' : m.etag.slice(0, 8), m.size, tagsText(m.tags)]),
  );
}

function required(vid: string | undefined): string {
  if (!vid) throw new Error('a version id is required for a versioned write');
  return vid;
}
