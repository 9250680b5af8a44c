/* eslint-disable max-lines -- TEMPORARY: split pending */
// The crash loop's workload: PUT (some with tags), overwrite, multipart (one or two parts), DELETE, DELETE of one
// version, DeleteObjects, COPY, PutObjectTagging, and admin upload and delete, from a few concurrent workers, until
// the server is killed. Operations on one key never overlap (each op locks its keys), so per key the commit order is
// the acknowledgement order and at most one operation is left unknown by the kill. Acknowledged effects go straight
// into the model; cut-off ones are returned for resolution against the database.

import { createHash, randomBytes, randomInt } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { sdkClient } from './clients.js';
import { md5Hex, sha256Hex } from './data-dir-inspect.js';
import type { Content, CrashModel, Effect, Tags } from './crash-model.js';
import type { RunningServer } from './server.js';

export interface AdminAck {
  event: 'object.uploaded' | 'object.deleted';
  bucket: string;
  key: string;
  versionId: string | undefined;
  at: number;
}

export interface RoundOutcome {
  acked: number;
  /** "bucket\nkey" -> the effect of the operation the kill cut off on that key. */
  unknown: Map<string, Effect>;
  /** Failures while the server was up: each one is a bug. */
  failures: string[];
  adminAcks: AdminAck[];
  kinds: Record<string, number>;
  /** When SIGKILL was sent (epoch ms). */
  killedAt: number;
}

export interface WorkloadOptions {
  server: RunningServer;
  model: CrashModel;
  adminToken: string;
  killAfterMs: number;
  concurrency?: number;
}

const MiB = 1024 * 1024;

/** 0 B to ~400 KiB log-uniform (inline and file-backed), now and then 1-2 MiB. */
function bodySize(): number {
  if (randomInt(20) === 0) return MiB + randomInt(MiB);
  return Math.floor(Math.exp(Math.random() * Math.log(400 * 1024))) - 1;
}

function contentOf(parts: Buffer[], tags: Tags, type: Content['type']): Content {
  const whole = Buffer.concat(parts);
  const md5 = md5Hex(whole);
  const etag =
    type === 'multipart.completed'
      ? `${createHash('md5')
          .update(Buffer.concat(parts.map((p) => createHash('md5').update(p).digest())))
          .digest('hex')}-${parts.length}`
      : md5;
  return { sha: sha256Hex(whole), md5, etag, size: whole.length, tags, type };
}

function randomTags(): Tags {
  const tags: Tags = {};
  for (let i = randomInt(1, 4); i > 0; i--) tags[`t${randomInt(5)}`] = randomBytes(3).toString('hex');
  return tags;
}

const tagQuery = (tags: Tags): string => new URLSearchParams(tags).toString();
const copySource = (bucket: string, key: string, vid: string): string =>
  `${bucket}/${encodeURIComponent(key)}${vid === 'null' ? '' : `?versionId=${vid}`}`;

interface Target {
  bucket: string;
  key: string;
  effect: Effect;
}

class Round {
  readonly outcome: RoundOutcome = {
    acked: 0,
    unknown: new Map(),
    failures: [],
    adminAcks: [],
    kinds: {},
    killedAt: 0,
  };
  stopping = false;
  private readonly busy = new Set<string>();
  readonly s3: S3Client;

  constructor(readonly opts: WorkloadOptions) {
    this.s3 = sdkClient(opts.server);
  }

  get model(): CrashModel {
    return this.opts.model;
  }

  /** Locks `keys` of `bucket` if none is busy. */
  lock(bucket: string, keys: string[]): boolean {
    const ids = keys.map((k) => `${bucket}\n${k}`);
    if (ids.some((id) => this.busy.has(id)) || new Set(ids).size !== ids.length) return false;
    for (const id of ids) this.busy.add(id);
    return true;
  }

  unlock(bucket: string, keys: string[]): void {
    for (const k of keys) this.busy.delete(`${bucket}\n${k}`);
  }

  /**
   * Sends an operation on locked keys. `send` resolves with the version id of each target (for new versions and
   * delete markers) once acknowledged; then the effects apply to the model. A failure while the server is being
   * killed leaves them unknown; any other failure is recorded (and the effects are left unknown too).
   */
  async perform(kind: string, targets: Target[], send: () => Promise<(string | undefined)[]>): Promise<void> {
    this.outcome.kinds[kind] = (this.outcome.kinds[kind] ?? 0) + 1;
    try {
      const vids = await send();
      targets.forEach((t, i) => this.model.apply({ bucket: t.bucket, key: t.key }, t.effect, vids[i]));
      this.outcome.acked++;
    } catch (err) {
      for (const t of targets) this.outcome.unknown.set(`${t.bucket}\n${t.key}`, t.effect);
      if (!this.stopping) {
        const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
        this.outcome.failures.push(
          `${kind} ${targets.map((t) => `${t.bucket}/${t.key}`).join(',')}: ${e.$metadata?.httpStatusCode ?? ''} ${e.name} ${e.message}`,
        );
      }
    }
  }

  async admin(method: string, { bucket, key }: { bucket: string; key: string }, body?: Buffer): Promise<Response> {
    const res = await fetch(
      `${this.opts.server.url}/api/admin/buckets/${bucket}/objects/content?key=${encodeURIComponent(key)}`,
      {
        method,
        headers: {
          authorization: `Bearer ${this.opts.adminToken}`,
          ...(body ? { 'content-type': 'application/octet-stream' } : {}),
        },
        ...(body ? { body } : {}),
      },
    );
    if (res.status >= 300) throw new Error(`admin ${method} -> ${res.status} ${await res.text()}`);
    return res;
  }
}

type OpFn = (r: Round, bucket: string, versioned: boolean) => Promise<boolean>;

/** Picks a free key of `bucket` (preferring ones for which `want` holds) and locks it. */
function pickKey(r: Round, bucket: string, want: (key: string) => boolean = () => true): string | undefined {
  const keys = [...(r.model.buckets.get(bucket)?.keys.keys() ?? [])];
  const wanted = keys.filter(want);
  for (const pool of [wanted, wanted.length ? [] : keys]) {
    for (let tries = 0; tries < 6 && pool.length > 0; tries++) {
      const key = pool[randomInt(pool.length)] as string;
      if (r.lock(bucket, [key])) return key;
    }
  }
  return undefined;
}

const withKey =
  (
    want: ((r: Round, bucket: string) => (key: string) => boolean) | undefined,
    fn: (r: Round, target: { bucket: string; key: string; versioned: boolean }) => Promise<void>,
  ): OpFn =>
  async (r, bucket, versioned) => {
    const key = pickKey(r, bucket, want?.(r, bucket));
    if (key === undefined) return false;
    try {
      await fn(r, { bucket, key, versioned });
    } finally {
      r.unlock(bucket, [key]);
    }
    return true;
  };

const hasCurrent =
  (r: Round, bucket: string) =>
  (key: string): boolean =>
    r.model.current(bucket, key) !== undefined;

const OPS: Record<string, OpFn> = {
  put: withKey(undefined, async (r, { bucket, key }) => {
    const body = randomBytes(bodySize());
    const tags = randomInt(4) === 0 ? randomTags() : {};
    await r.perform(
      'put',
      [{ bucket, key, effect: { t: 'put', content: contentOf([body], tags, 'object.created') } }],
      async () => {
        const res = await r.s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body,
            ...(Object.keys(tags).length ? { Tagging: tagQuery(tags) } : {}),
          }),
        );
        return [res.VersionId];
      },
    );
  }),
  multipart: withKey(undefined, async (r, { bucket, key }) => {
    const parts =
      randomInt(6) === 0 ? [randomBytes(5 * MiB), randomBytes(randomInt(1, 100_000))] : [randomBytes(bodySize() + 1)];
    await r.perform(
      'multipart',
      [{ bucket, key, effect: { t: 'put', content: contentOf(parts, {}, 'multipart.completed') } }],
      async () => {
        const { UploadId } = await r.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
        const done = [];
        for (const [i, part] of parts.entries()) {
          const res = await r.s3.send(
            new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: i + 1, Body: part }),
          );
          done.push({ PartNumber: i + 1, ETag: res.ETag });
        }
        const res = await r.s3.send(
          new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: done } }),
        );
        return [res.VersionId];
      },
    );
  }),
  delete: withKey(undefined, async (r, { bucket, key }) => {
    await r.perform('delete', [{ bucket, key, effect: { t: 'delete' } }], async () => {
      const res = await r.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      return [res.VersionId];
    });
  }),
  deleteVersion: withKey(
    (r, bucket) => (key) => r.model.versions(bucket, key).length > 3,
    async (r, { bucket, key, versioned }) => {
      const versions = r.model.versions(bucket, key);
      if (!versioned || versions.length === 0) return;
      // Mostly the oldest (keeps the stacks short), sometimes the current one (promotes the next) or a marker.
      const victim = randomInt(3) === 0 ? versions[randomInt(versions.length)] : versions[0];
      const vid = victim?.vid as string;
      await r.perform('deleteVersion', [{ bucket, key, effect: { t: 'deleteVersion', vid } }], async () => {
        await r.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, VersionId: vid }));
        return [undefined];
      });
    },
  ),
  deleteObjects: async (r, bucket, versioned) => {
    const all = [...(r.model.buckets.get(bucket)?.keys.keys() ?? [])];
    const keys = [...new Set(Array.from({ length: randomInt(2, 5) }, () => all[randomInt(all.length)] as string))];
    if (!r.lock(bucket, keys)) return false;
    try {
      const items = keys.map((key) => {
        const versions = r.model.versions(bucket, key);
        const vid = versioned && versions.length > 0 && randomInt(2) === 0 ? versions[0]?.vid : undefined;
        return { key, vid, effect: (vid ? { t: 'deleteVersion', vid } : { t: 'delete' }) as Effect };
      });
      await r.perform(
        'deleteObjects',
        items.map((i) => ({ bucket, key: i.key, effect: i.effect })),
        async () => {
          const res = await r.s3.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: items.map((i) => ({ Key: i.key, ...(i.vid ? { VersionId: i.vid } : {}) })) },
            }),
          );
          if (res.Errors?.length) throw new Error(`DeleteObjects errors: ${JSON.stringify(res.Errors)}`);
          return items.map((i) => res.Deleted?.find((d) => d.Key === i.key)?.DeleteMarkerVersionId);
        },
      );
    } finally {
      r.unlock(bucket, keys);
    }
    return true;
  },
  copy: async (r, bucket) => {
    const sourceBucket = [...r.model.buckets.keys()][randomInt(r.model.buckets.size)] as string;
    const sourceKey = pickKey(r, sourceBucket, hasCurrent(r, sourceBucket));
    if (sourceKey === undefined) return false;
    const key = pickKey(r, bucket);
    const source = r.model.current(sourceBucket, sourceKey);
    try {
      if (key === undefined || source === undefined) return key !== undefined;
      const content: Content = {
        sha: source.sha,
        md5: source.md5,
        etag: source.md5,
        size: source.size,
        tags: source.tags,
        type: 'object.created',
      };
      await r.perform('copy', [{ bucket, key, effect: { t: 'put', content } }], async () => {
        const res = await r.s3.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: key,
            CopySource: copySource(sourceBucket, sourceKey, source.vid),
          }),
        );
        return [res.VersionId];
      });
    } finally {
      r.unlock(sourceBucket, [sourceKey]);
      if (key !== undefined) r.unlock(bucket, [key]);
    }
    return true;
  },
  tag: withKey(hasCurrent, async (r, { bucket, key, versioned }) => {
    const current = r.model.current(bucket, key);
    if (!current) return;
    const tags = randomTags();
    await r.perform('tag', [{ bucket, key, effect: { t: 'tag', vid: current.vid, tags } }], async () => {
      await r.s3.send(
        new PutObjectTaggingCommand({
          Bucket: bucket,
          Key: key,
          ...(versioned ? { VersionId: current.vid } : {}),
          Tagging: { TagSet: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
        }),
      );
      return [undefined];
    });
  }),
  adminUpload: withKey(undefined, async (r, { bucket, key }) => {
    const body = randomBytes(bodySize());
    await r.perform(
      'adminUpload',
      [{ bucket, key, effect: { t: 'put', content: contentOf([body], {}, 'object.created') } }],
      async () => {
        const res = await r.admin('PUT', { bucket, key }, body);
        const { versionId } = (await res.json()) as { versionId?: string };
        r.outcome.adminAcks.push({
          event: 'object.uploaded',
          bucket,
          key,
          versionId: versionId ?? 'null',
          at: Date.now(),
        });
        return [versionId];
      },
    );
  }),
  adminDelete: withKey(undefined, async (r, { bucket, key }) => {
    await r.perform('adminDelete', [{ bucket, key, effect: { t: 'delete' } }], async () => {
      const res = await r.admin('DELETE', { bucket, key });
      const versionId = res.headers.get('x-amz-version-id') ?? undefined;
      r.outcome.adminAcks.push({ event: 'object.deleted', bucket, key, versionId, at: Date.now() });
      return [versionId];
    });
  }),
};

/** Relative weights; deleteVersion only in a versioned bucket. */
const WEIGHTS: [string, number][] = [
  ['put', 26],
  ['multipart', 8],
  ['delete', 9],
  ['deleteVersion', 10],
  ['deleteObjects', 7],
  ['copy', 10],
  ['tag', 10],
  ['adminUpload', 8],
  ['adminDelete', 4],
];

/** Picks an operation; version trimming weighs more while the versioned stacks are long (bounded read-back work). */
function pickOp(bucket: { versioned: boolean; keys: Map<string, unknown[]> }): string {
  const versions = [...bucket.keys.values()].reduce((n, v) => n + v.length, 0);
  const trim = versions > 6 * bucket.keys.size ? 4 : 1;
  const usable = WEIGHTS.filter(([name]) => bucket.versioned || name !== 'deleteVersion').map(
    ([name, w]): [string, number] => [name, name === 'deleteVersion' ? w * trim : w],
  );
  let dice = randomInt(usable.reduce((a, [, w]) => a + w, 0));
  for (const [name, w] of usable) {
    if (dice < w) return name;
    dice -= w;
  }
  return 'put';
}

/** The multipart uploads an earlier kill left (listed before this round starts any). */
async function listLeftovers(r: Round): Promise<{ Bucket: string; Key: string; UploadId: string }[]> {
  const out = [];
  for (const bucket of r.model.buckets.keys()) {
    const res = await r.s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    for (const u of res.Uploads ?? [])
      out.push({ Bucket: bucket, Key: u.Key as string, UploadId: u.UploadId as string });
  }
  return out;
}

/**
 * Runs the workload and kills the server (SIGKILL) `killAfterMs` after the start, with requests in flight. Resolves
 * once every worker has stopped.
 */
export async function runUntilKilled(opts: WorkloadOptions): Promise<RoundOutcome> {
  const r = new Round(opts);
  const buckets = [...opts.model.buckets.values()];
  const killed = new Promise<void>((resolve) => setTimeout(resolve, opts.killAfterMs)).then(async () => {
    r.stopping = true;
    r.outcome.killedAt = Date.now();
    await opts.server.kill();
  });
  // Each abort is all-or-nothing too, and an upload's parts are blobs the boot GC must not take (nor leave behind).
  const leftovers = await listLeftovers(r).catch((err: unknown) => {
    if (!r.stopping) r.outcome.failures.push(`listing leftover uploads: ${String(err)}`);
    return [];
  });
  const worker = async (n: number): Promise<void> => {
    for (const upload of n === 0 ? leftovers : []) {
      if (r.stopping) return;
      await r.s3.send(new AbortMultipartUploadCommand(upload)).catch((err: unknown) => {
        if (!r.stopping) r.outcome.failures.push(`abort of a leftover upload: ${String(err)}`);
      });
    }
    // An admin write first, so most rounds have one acknowledged long enough before the kill for the audit check.
    if (n === 1) await (OPS['adminUpload'] as OpFn)(r, (buckets[0] as (typeof buckets)[number]).name, true);
    while (!r.stopping) {
      const bucket = buckets[randomInt(buckets.length)] as (typeof buckets)[number];
      const ran = await (OPS[pickOp(bucket)] as OpFn)(r, bucket.name, bucket.versioned);
      if (!ran) await new Promise((res) => setTimeout(res, 2));
    }
  };
  await Promise.all([killed, ...Array.from({ length: opts.concurrency ?? 6 }, (_, n) => worker(n))]);
  r.s3.destroy();
  return r.outcome;
}
