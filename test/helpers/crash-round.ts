// One round of the crash loop's workload (crash-workload.ts): what it records, and the Round that sends operations
// on locked keys and applies acknowledged effects to the model; plus how an operation picks and locks its key.

import { randomInt } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { sdkClient } from './clients.js';
import type { CrashModel, Effect } from './crash-model.js';
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

export interface Target {
  bucket: string;
  key: string;
  effect: Effect;
}

export class Round {
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

export type OpFn = (r: Round, bucket: string, versioned: boolean) => Promise<boolean>;

/** Picks a free key of `bucket` (preferring ones for which `want` holds) and locks it. */
export function pickKey(r: Round, bucket: string, want: (key: string) => boolean = () => true): string | undefined {
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

export const withKey =
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

export const hasCurrent =
  (r: Round, bucket: string) =>
  (key: string): boolean =>
    r.model.current(bucket, key) !== undefined;
