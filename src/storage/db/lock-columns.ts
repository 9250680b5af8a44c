// Decoding of the per-version columns several repositories read: tags (JSON) and object lock retention.

import type { ObjectRetention, RetentionMode } from '../../core/object-lock.js';
import type { TagSet } from '../../core/tagging.js';

/** The tags column (JSON, NULL for none). */
export function tagsOf(column: string | null): TagSet | undefined {
  return column ? (JSON.parse(column) as TagSet) : undefined;
}

/** The retention columns: both set, or no retention. */
export function retentionOf(mode: RetentionMode | null, retainUntil: string | null): ObjectRetention | undefined {
  return mode && retainUntil ? { mode, retainUntilDate: retainUntil } : undefined;
}
