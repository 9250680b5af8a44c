// Per-bucket hard quotas on the write path (docs/quotas.md). A write is admitted against the bucket's committed
// usage plus what the writes in flight hold: its declared net growth is held from admission until its commit (or
// failure), and a body of unknown length is held chunk by chunk as it arrives, so concurrent writers cannot together
// pass the quota. The committing transaction checks the real change again (quotaCommitCheck), which is exact.

import { hasQuota, quotaBreach, quotaExceeded, type BucketQuota, type QuotaUsage } from '../../core/quota.js';
import type { BucketRow } from '../../storage/db/buckets-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { WriteLease } from './write-reserve.js';

/** One write's hold on its bucket's quota, from admission until its commit or failure. */
export interface QuotaLease {
  /** Counts `bytes` more of the body; throws QuotaExceeded when they pass what was admitted and the quota. */
  charge(bytes: number): void;
  /** Ends the hold (idempotent). Called in the committing transaction, or when the write fails. */
  release(): void;
}

/** The lease of a write to a bucket without a quota. */
export const NO_QUOTA_LEASE: QuotaLease = { charge: () => undefined, release: () => undefined };

/** A write's reserve lease that also charges each byte to its quota lease (which the caller releases). */
export function chargeQuota(lease: WriteLease, quota: QuotaLease): WriteLease {
  if (quota === NO_QUOTA_LEASE) return lease;
  return {
    charge: (bytes) => {
      quota.charge(bytes);
      lease.charge(bytes);
    },
    release: () => lease.release(),
  };
}

/** What a write is about to do to its bucket's usage, as far as is known before its body is read. */
export interface QuotaWrite {
  /** Bytes it will store (Content-Length, a copy's source size); undefined when unknown (charged as they arrive). */
  bytes: number | undefined;
  /** Bytes it will replace and so free (an unversioned overwrite's current version, a part uploaded again). */
  replacedBytes: number;
  /** True when it adds an object: the key has no current version (or only a delete marker). */
  isNewObject: boolean;
}

/**
 * Test seam: called once a write is admitted, before its body is read, so that a test can hold admitted writes and
 * prove concurrent writers cannot overshoot without depending on timing.
 */
export type QuotaAdmitHook = (bucket: string) => Promise<void>;

/** A bucket's usage as its quota counts it: every version's bytes and open uploads' parts, and current objects. */
export function quotaUsage(meta: MetadataStore, bucket: string): QuotaUsage {
  const usage = meta.buckets.usage(bucket);
  return { bytes: usage.versionBytes + meta.buckets.uploadBytes(bucket), objects: usage.objectCount };
}

/**
 * Runs `change` (inside the committing transaction) and refuses it with QuotaExceeded when it raised the bucket's
 * usage over its quota; the transaction then rolls back. A bucket without a quota costs nothing.
 */
export function quotaCommitCheck<T>(meta: MetadataStore, bucket: BucketRow, change: () => T): T {
  const quota = bucket.config.quota;
  if (!hasQuota(quota)) return change();
  const before = quotaUsage(meta, bucket.name);
  const result = change();
  const breach = quotaBreach(quota, { before, after: quotaUsage(meta, bucket.name) });
  if (breach !== undefined) throw quotaExceeded(bucket.name, breach, quota);
  return result;
}

class Lease implements QuotaLease {
  /** Bytes of the body so far. */
  private charged = 0;
  private released = false;

  private readonly gate: QuotaGate;
  private readonly target: { bucket: string; quota: BucketQuota };
  /** Bytes that need no further check: the declared size, or (unknown size) what the write replaces. */
  private readonly allowance: number;
  /** What this lease holds of the bucket's quota. */
  readonly held: QuotaUsage;

  constructor(opts: {
    gate: QuotaGate;
    target: { bucket: string; quota: BucketQuota };
    allowance: number;
    held: QuotaUsage;
  }) {
    this.gate = opts.gate;
    this.target = opts.target;
    this.allowance = opts.allowance;
    this.held = opts.held;
  }

  get bucket(): string {
    return this.target.bucket;
  }

  charge(bytes: number): void {
    if (this.released || bytes <= 0) return;
    const beyond = Math.min(bytes, this.charged + bytes - Math.max(this.allowance, this.charged));
    this.charged += bytes;
    if (beyond <= 0) return;
    this.gate.hold(this.target, { bytes: beyond, objects: 0 });
    this.held.bytes += beyond;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.gate.unhold(this.target.bucket, this.held);
  }
}

export class QuotaGate {
  /** What the writes in flight hold, per bucket. */
  private readonly inFlight = new Map<string, QuotaUsage>();

  constructor(
    private readonly meta: MetadataStore,
    private readonly onAdmitted?: QuotaAdmitHook,
  ) {}

  /**
   * Admits a write to `bucket` against its quota (a bucket without one: NO_QUOTA_LEASE). Its net growth (declared
   * bytes less what it replaces, and one object if it adds one) must fit beside the committed usage and what the
   * writes in flight hold. Throws QuotaExceeded. Release the lease when the write commits or fails. Synchronous, so
   * that a copy can admit in the tick of its source's lookup.
   */
  admit(bucket: BucketRow, write: QuotaWrite): QuotaLease {
    const quota = bucket.config.quota;
    if (!hasQuota(quota)) return NO_QUOTA_LEASE;
    const allowance = write.bytes ?? write.replacedBytes;
    const growth = { bytes: Math.max(allowance - write.replacedBytes, 0), objects: write.isNewObject ? 1 : 0 };
    const target = { bucket: bucket.name, quota };
    this.hold(target, growth);
    return new Lease({ gate: this, target, allowance, held: { ...growth } });
  }

  /** Runs the test seam (QuotaAdmitHook) for an admitted write; nothing for a bucket without a quota. */
  async admitted(lease: QuotaLease): Promise<void> {
    if (lease instanceof Lease) await this.onAdmitted?.(lease.bucket);
  }

  /** What the writes in flight to `bucket` hold (for tests and the admin API's view). */
  held(bucket: string): QuotaUsage {
    return { ...(this.inFlight.get(bucket) ?? { bytes: 0, objects: 0 }) };
  }

  /** Adds `growth` to what is held for the bucket, or throws QuotaExceeded if that would pass its quota. */
  hold(target: { bucket: string; quota: BucketQuota }, growth: QuotaUsage): void {
    const held = this.held(target.bucket);
    const committed = quotaUsage(this.meta, target.bucket);
    const before = { bytes: committed.bytes + held.bytes, objects: committed.objects + held.objects };
    const after = { bytes: before.bytes + growth.bytes, objects: before.objects + growth.objects };
    const breach = quotaBreach(target.quota, { before, after });
    if (breach !== undefined) throw quotaExceeded(target.bucket, breach, target.quota);
    this.inFlight.set(target.bucket, { bytes: held.bytes + growth.bytes, objects: held.objects + growth.objects });
  }

  unhold(bucket: string, held: QuotaUsage): void {
    const current = this.held(bucket);
    const next = { bytes: current.bytes - held.bytes, objects: current.objects - held.objects };
    if (next.bytes <= 0 && next.objects <= 0) this.inFlight.delete(bucket);
    else this.inFlight.set(bucket, next);
  }
}
