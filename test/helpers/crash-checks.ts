// The crash loop's invariants. After a kill, from the database read before the next boot: the integrity check, the
// cut-off operations resolved all-or-nothing, no referenced blob missing, the webhook outbox holding exactly the
// events of the committed history, a replication intent (or an up-to-date mirror) for every key, and the audit rows
// of admin actions acknowledged well before the kill. After the boot, through S3: every version byte-exact and
// nothing else visible; and no orphan blob left once boot GC has run.

import {
  GetObjectCommand,
  GetObjectTaggingCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  blobFileIds,
  missingFrom,
  readDbSnapshot,
  sha256Hex,
  type DbSnapshot,
  type VersionRow,
} from './data-dir-inspect.js';
import { eventSignature, tagsText, type CrashModel, type ModelVersion } from './crash-model.js';
import type { RoundOutcome } from './crash-workload.js';
import { remoteListing, type Target } from './replication.js';

export interface KillReport {
  integrity: string;
  /** Cut-off operations found committed / not committed. */
  applied: number;
  notApplied: number;
  versions: number;
  webhookRows: number;
  /** Keys whose latest state is still to be mirrored (an outbox row) / already mirrored. */
  pendingIntents: number;
  mirrored: number;
  auditChecked: number;
  problems: string[];
}

const rowsByKey = (snap: DbSnapshot, buckets: ReadonlySet<string>): Map<string, VersionRow[]> => {
  const out = new Map<string, VersionRow[]>();
  for (const row of snap.versions) {
    if (!buckets.has(row.bucket)) continue;
    const id = `${row.bucket}\n${row.key}`;
    out.set(id, [...(out.get(id) ?? []), row]);
  }
  return out;
};

/** Checks the data directory of a killed server (before the next boot) and resolves the cut-off operations. */
export async function checkAfterKill(opts: {
  dataDir: string;
  model: CrashModel;
  outcome: RoundOutcome;
  target: Target;
  killedAt: number;
  auditSlackMs: number;
}): Promise<KillReport> {
  const { model, outcome } = opts;
  const snap = readDbSnapshot(opts.dataDir);
  const problems: string[] = [];
  const buckets = new Set(model.buckets.keys());
  const report: KillReport = {
    integrity: snap.integrity.join(';'),
    applied: 0,
    notApplied: 0,
    versions: 0,
    webhookRows: 0,
    pendingIntents: 0,
    mirrored: 0,
    auditChecked: 0,
    problems,
  };
  if (report.integrity !== 'ok') problems.push(`integrity_check: ${report.integrity}`);

  // All-or-nothing: every key's rows are the model, or the model plus the whole cut-off operation.
  const rows = rowsByKey(snap, buckets);
  for (const [name, b] of model.buckets) {
    for (const key of new Set([
      ...b.keys.keys(),
      ...[...rows.keys()].filter((id) => id.startsWith(`${name}\n`)).map((id) => id.slice(name.length + 1)),
    ])) {
      const id = `${name}\n${key}`;
      const keyRows = rows.get(id) ?? [];
      const unknown = outcome.unknown.get(id);
      const verdict = model.resolve({ bucket: name, key }, keyRows, unknown);
      if (verdict === 'applied') report.applied++;
      else if (verdict === 'none') {
        if (unknown) report.notApplied++;
      } else problems.push(`${name}/${key}: ${verdict}`);
      report.versions += keyRows.length;
      const latest = keyRows.filter((r) => r.isLatest);
      if (keyRows.length > 0 && (latest.length !== 1 || latest[0] !== keyRows.at(-1)))
        problems.push(`${name}/${key}: is_latest is not the newest row`);
    }
  }

  // Blobs: every referenced file exists; inline bytes exist exactly for the rows that reference them.
  const files = blobFileIds(opts.dataDir);
  const missing = missingFrom(snap.fileBlobRefs, files);
  if (missing.length) problems.push(`referenced blob files missing: ${missing.join(', ')}`);
  const inlineMissing = missingFrom(snap.inlineRefs, snap.inlineRows);
  const inlineOrphans = missingFrom(snap.inlineRows, snap.inlineRefs);
  if (inlineMissing.length || inlineOrphans.length)
    problems.push(`inline blobs: ${inlineMissing.length} missing, ${inlineOrphans.length} unreferenced`);

  // Webhooks: the outbox holds one row per committed change (delivered rows stay 7 days), and none for anything else.
  const actual = new Map<string, number>();
  for (const w of snap.webhooks) {
    if (!buckets.has(w.event.bucket)) continue;
    report.webhookRows++;
    const sig = eventSignature(w.event);
    actual.set(sig, (actual.get(sig) ?? 0) + 1);
  }
  for (const sig of new Set([...actual.keys(), ...model.events.keys()])) {
    if ((actual.get(sig) ?? 0) !== (model.events.get(sig) ?? 0)) {
      problems.push(
        `webhook rows for ${sig}: ${actual.get(sig) ?? 0}, committed changes: ${model.events.get(sig) ?? 0}`,
      );
    }
  }

  // Audit: admin writes acknowledged a flush interval (plus slack) before the kill are stored.
  for (const ack of outcome.adminAcks) {
    if (ack.at > opts.killedAt - opts.auditSlackMs) continue;
    report.auditChecked++;
    const found = snap.audit.some(
      (a) =>
        a.event === ack.event &&
        a.bucket === ack.bucket &&
        a.details['key'] === ack.key &&
        (ack.versionId === undefined || a.details['versionId'] === ack.versionId),
    );
    if (!found)
      problems.push(
        `no audit row for ${ack.event} ${ack.bucket}/${ack.key} ${ack.versionId ?? ''} acknowledged ${opts.killedAt - ack.at} ms before the kill`,
      );
  }

  await checkIntents({ model, snap, target: opts.target, report, requireMirrored: false });
  return report;
}

/**
 * Replication: the latest committed state of every key is either waiting in the outbox (one row per key: a burst
 * collapses, a delivered intent is deleted) or already on the target, with the same bytes (the MD5) and tags.
 * `requireMirrored`: the outbox must be empty too (after the final drain).
 */
export async function checkIntents(opts: {
  model: CrashModel;
  snap: DbSnapshot;
  target: Target;
  report: KillReport;
  requireMirrored: boolean;
}): Promise<void> {
  const { model, snap, target, report } = opts;
  const remote = await remoteListing(target);
  for (const [name, b] of model.buckets) {
    const keys = new Set([
      ...b.keys.keys(),
      ...[...remote.keys()].filter((k) => k.startsWith(`${name}/`)).map((k) => k.slice(name.length + 1)),
    ]);
    for (const key of keys) {
      const status = snap.replication.get(`${name}/${key}`);
      if (status !== undefined) {
        report.pendingIntents++;
        if (opts.requireMirrored) report.problems.push(`replication intent for ${name}/${key} still ${status}`);
        continue;
      }
      const local = model.current(name, key);
      const mirrored = remote.get(`${name}/${key}`);
      if (!local) {
        if (mirrored) report.problems.push(`${name}/${key} is deleted locally but still on the target, with no intent`);
        continue;
      }
      if (!mirrored || mirrored.etag !== local.md5 || mirrored.size !== local.size) {
        report.problems.push(
          `${name}/${key}: target has ${JSON.stringify(mirrored)}, local ${local.md5}/${local.size}, and no intent`,
        );
        continue;
      }
      const tags = await target.client.send(
        new GetObjectTaggingCommand({ Bucket: target.bucket, Key: `${name}/${key}` }),
      );
      const remoteTags = Object.fromEntries((tags.TagSet ?? []).map((t) => [t.Key as string, t.Value as string]));
      if (tagsText(remoteTags) !== tagsText(local.tags)) {
        report.problems.push(
          `${name}/${key}: target tags ${tagsText(remoteTags)}, local ${tagsText(local.tags)}, and no intent`,
        );
        continue;
      }
      report.mirrored++;
    }
  }
}

interface Listed {
  key: string;
  vid: string;
  marker: boolean;
  etag: string;
  size: number;
  latest: boolean;
}

async function listAll(s3: S3Client, bucket: string, versioned: boolean): Promise<Listed[]> {
  const out: Listed[] = [];
  if (!versioned) {
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      for (const c of page.Contents ?? [])
        out.push({
          key: c.Key as string,
          vid: 'null',
          marker: false,
          etag: (c.ETag ?? '').replace(/"/g, ''),
          size: c.Size ?? 0,
          latest: true,
        });
      token = page.NextContinuationToken;
    } while (token);
    return out;
  }
  let keyMarker: string | undefined;
  let vidMarker: string | undefined;
  for (;;) {
    const page = await s3.send(
      new ListObjectVersionsCommand({ Bucket: bucket, KeyMarker: keyMarker, VersionIdMarker: vidMarker }),
    );
    for (const v of page.Versions ?? [])
      out.push({
        key: v.Key as string,
        vid: v.VersionId as string,
        marker: false,
        etag: (v.ETag ?? '').replace(/"/g, ''),
        size: v.Size ?? 0,
        latest: v.IsLatest === true,
      });
    for (const m of page.DeleteMarkers ?? [])
      out.push({
        key: m.Key as string,
        vid: m.VersionId as string,
        marker: true,
        etag: '',
        size: 0,
        latest: m.IsLatest === true,
      });
    if (!page.IsTruncated) return out;
    keyMarker = page.NextKeyMarker;
    vidMarker = page.NextVersionIdMarker;
  }
}

/**
 * Through S3 after a boot: the listings show exactly the model's versions (no unacknowledged or partial object),
 * and the bytes of every version written since the last check (all of them when `full`) are the bytes sent.
 * Returns the problems and how many versions were read back.
 */
export async function verifyThroughS3(
  s3: S3Client,
  model: CrashModel,
  full: boolean,
): Promise<{ problems: string[]; read: number }> {
  const problems: string[] = [];
  let read = 0;
  for (const [name, b] of model.buckets) {
    const listed = await listAll(s3, name, b.versioned);
    const expected: Listed[] = [];
    for (const [key, versions] of b.keys) {
      versions.forEach((v, i) =>
        expected.push({
          key,
          vid: v.vid,
          marker: v.marker,
          etag: v.etag,
          size: v.size,
          latest: i === versions.length - 1,
        }),
      );
    }
    const text = (l: Listed): string => `${l.key}|${l.vid}|${l.marker}|${l.etag}|${l.size}|${l.latest}`;
    const seen = new Set(listed.map(text));
    const want = new Set(expected.filter((e) => b.versioned || !e.marker).map(text));
    for (const x of seen) if (!want.has(x)) problems.push(`${name}: listed but not acknowledged: ${x}`);
    for (const x of want) if (!seen.has(x)) problems.push(`${name}: acknowledged but not listed: ${x}`);

    for (const [key, versions] of b.keys) {
      for (const v of versions) {
        if (v.marker) continue;
        const id = `${name}/${key}/${v.vid}`;
        if (full || model.dirty.has(id)) {
          read++;
          const got = await s3.send(
            new GetObjectCommand({ Bucket: name, Key: key, ...(b.versioned ? { VersionId: v.vid } : {}) }),
          );
          const bytes = Buffer.from(await got.Body!.transformToByteArray());
          if (sha256Hex(bytes) !== v.sha)
            problems.push(`${id}: ${bytes.length} bytes read back, not the ${v.size} acknowledged`);
        }
        if (full || model.dirty.has(`${id}:tags`) || model.dirty.has(id)) {
          const tags = await s3.send(
            new GetObjectTaggingCommand({ Bucket: name, Key: key, ...(b.versioned ? { VersionId: v.vid } : {}) }),
          );
          const got = Object.fromEntries((tags.TagSet ?? []).map((t) => [t.Key as string, t.Value as string]));
          if (tagsText(got) !== tagsText(v.tags))
            problems.push(`${id}: tags ${tagsText(got)}, acknowledged ${tagsText(v.tags)}`);
        }
      }
    }
  }
  if (problems.length === 0) model.dirty.clear();
  return { problems, read };
}

/**
 * Waits until the blob files on disk are exactly those committed rows reference (boot's orphan sweep and the GC
 * queue done), up to `timeoutMs`. Returns the leftovers (orphans) and the missing, empty when clean.
 */
export async function waitForNoOrphans(
  dataDir: string,
  timeoutMs: number,
): Promise<{ orphans: string[]; missing: string[]; files: number; waitedMs: number }> {
  const start = Date.now();
  for (;;) {
    const snap = readDbSnapshot(dataDir, { integrity: false });
    const files = blobFileIds(dataDir);
    const orphans = missingFrom(files, snap.fileBlobRefs);
    const missing = missingFrom(snap.fileBlobRefs, files);
    if ((orphans.length === 0 && missing.length === 0) || Date.now() - start > timeoutMs) {
      return { orphans, missing, files: files.size, waitedMs: Date.now() - start };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export type { ModelVersion };
