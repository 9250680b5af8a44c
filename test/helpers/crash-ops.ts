// The crash loop's operations (crash-workload.ts): PUT (some with tags), overwrite, multipart (one or two parts),
// DELETE, DELETE of one version, DeleteObjects, COPY, PutObjectTagging, admin upload and delete; their weights, and
// the content each one is expected to leave.

import { createHash, randomBytes, randomInt } from 'node:crypto';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { md5Hex, sha256Hex } from './data-dir-inspect.js';
import type { Content, Effect, Tags } from './crash-model.js';
import { hasCurrent, pickKey, withKey, type OpFn } from './crash-round.js';

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

export const OPS: Record<string, OpFn> = {
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
export function pickOp(bucket: { versioned: boolean; keys: Map<string, unknown[]> }): string {
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
