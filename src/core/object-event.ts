// The event object (SPEC "Event object"): what in-process handlers receive and what a webhook body carries. Built
// from the committed row only (no request data), with `versionId` only for buckets whose versioning is Enabled.

import type { ObjectEventType } from '../lib/object-event-names.js';
import type { VersioningState } from './versioning.js';

export { isObjectEventType, OBJECT_EVENT_TYPES, type ObjectEventType } from '../lib/object-event-names.js';

export interface ObjectEvent<T extends ObjectEventType = ObjectEventType> {
  type: T;
  bucket: string;
  key: string;
  /** Bytes; 0 for a delete or a delete marker. */
  size: number;
  /** The object's ETag without quotes; empty for a delete marker. */
  etag: string;
  /** Present only when the bucket's versioning is Enabled (docs/decisions.md: not for Suspended). */
  versionId?: string;
  /** When the change was committed, ISO 8601 in UTC with milliseconds. */
  eventTime: string;
}

/** What a committed change looked like: the row written (or removed), and when. */
export interface CommittedChange {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  versionId: string;
  /** Epoch milliseconds of the commit. */
  time: number;
}

/**
 * The event for a committed change. `versionId` is set only when `versioning` is Enabled: an unversioned bucket's
 * objects all have the id `null`, and a Suspended bucket writes `null` too, so the id would say nothing.
 */
export function objectEvent<T extends ObjectEventType>(
  type: T,
  change: CommittedChange,
  versioning: VersioningState,
): ObjectEvent<T> {
  return {
    type,
    bucket: change.bucket,
    key: change.key,
    size: type === 'object.deleted' ? 0 : change.size,
    etag: change.etag,
    ...(versioning === 'Enabled' ? { versionId: change.versionId } : {}),
    eventTime: new Date(change.time).toISOString(),
  };
}

/**
 * The event as JSON with the fields in the spec's order: type, bucket, key, size, etag, (versionId), eventTime. The
 * order is part of the webhook contract, so the object is rebuilt here whatever order the caller's fields are in.
 */
export function serializeEvent(event: ObjectEvent): string {
  return JSON.stringify({
    type: event.type,
    bucket: event.bucket,
    key: event.key,
    size: event.size,
    etag: event.etag,
    ...(event.versionId !== undefined ? { versionId: event.versionId } : {}),
    eventTime: event.eventTime,
  });
}
