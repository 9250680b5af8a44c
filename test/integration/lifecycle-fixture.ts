// Shared by the lifecycle suites: the real services over a temp directory (test/helpers/services.ts) with helpers
// to make buckets with rules, write objects, read every version back, and run lifecycle at a given instant.

import type { LifecycleRule } from '../../src/core/lifecycle.js';
import type { LifecycleRunResult, LifecycleService } from '../../src/services/lifecycle-service.js';
import type { ObjectRow } from '../../src/services/objects/object-service.js';
import { body, openServices, type ServiceFixture } from '../helpers/services.js';

export const DAY = 86_400_000;

/** An Enabled rule over the whole bucket with a fresh ID, plus `overrides`. */
export function rule(overrides: Partial<LifecycleRule>): LifecycleRule {
  return { id: `r-${Math.random().toString(36).slice(2)}`, status: 'Enabled', filter: {}, ...overrides };
}

export interface VersionSummary {
  versionId: string;
  isLatest: boolean;
  isDeleteMarker: boolean;
}

export class LifecycleHarness {
  constructor(readonly fx: ServiceFixture) {}

  /** Creates a bucket (unversioned, versioning Enabled, or with object lock) with these lifecycle rules. */
  bucketWith(name: string, rules: LifecycleRule[], versioning?: 'Enabled' | 'objectLock'): string {
    if (versioning === 'objectLock') this.fx.buckets.create(name, { objectLock: true });
    else this.fx.buckets.create(name);
    if (versioning === 'Enabled') this.fx.buckets.setVersioning(name, 'Enabled');
    this.fx.buckets.putConfig(name, 'lifecycle', { rules });
    return name;
  }

  put(bucket: string, key: string, data = 'x'): Promise<ObjectRow> {
    return this.fx.objects.put({ bucket, key, body: body(data), headers: {}, userMeta: {} });
  }

  /** Every version of a key, newest first, as committed. */
  versions(bucket: string, key: string): VersionSummary[] {
    return this.fx.meta.db
      .prepare<[string, string], { version_id: string; is_latest: number; is_delete_marker: number }>(
        'SELECT version_id, is_latest, is_delete_marker FROM objects WHERE bucket = ? AND key = ? ORDER BY id DESC',
      )
      .all(bucket, key)
      .map((r) => ({ versionId: r.version_id, isLatest: r.is_latest === 1, isDeleteMarker: r.is_delete_marker === 1 }));
  }

  /** True when a GET of the key would find an object. */
  exists(bucket: string, key: string): boolean {
    const latest = this.fx.meta.objects.findLatest(bucket, key);
    return latest !== undefined && !latest.isDeleteMarker;
  }

  objectCount(): number {
    return (this.fx.meta.db.prepare('SELECT count(*) AS n FROM objects').get() as { n: number }).n;
  }

  /** One lifecycle run at `at`; the services' clock moves there too, as the one process clock does in production. */
  run(at: string, service: LifecycleService = this.fx.lifecycle()): Promise<LifecycleRunResult> {
    this.fx.clock.set(at);
    return service.runOnce(this.fx.clock.date());
  }
}

export async function openHarness(startIso = '2025-01-15T10:30:00.000Z'): Promise<LifecycleHarness> {
  return new LifecycleHarness(await openServices(startIso));
}
