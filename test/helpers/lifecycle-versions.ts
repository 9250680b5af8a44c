// Fixtures for the lifecycle evaluation tests (src/core/lifecycle-eval*.test.ts): a version to evaluate (a 1 MiB
// current object by default) and a rule (enabled, for every key), each with what a test overrides.

import type { LifecycleRule } from '../../src/core/lifecycle.js';
import type { LifecycleVersion } from '../../src/core/lifecycle-eval.js';

export const d = (iso: string): Date => new Date(iso);
export const BIG = 1024 * 1024;

export function version(over: Partial<LifecycleVersion> = {}): LifecycleVersion {
  return {
    key: 'logs/a.txt',
    size: BIG,
    tags: [],
    lastModified: d('2014-01-15T10:30:00Z'),
    isLatest: true,
    isDeleteMarker: false,
    newerNoncurrentCount: 0,
    isOnlyVersion: false,
    ...over,
  };
}

export const rule = (over: Partial<LifecycleRule>): LifecycleRule => ({
  id: 'r',
  status: 'Enabled',
  filter: {},
  ...over,
});
