// The seam between the services that commit changes and everything that reacts to them (webhook outbox, in-process
// handlers). The object service calls it; it never knows who listens.

import type { ObjectEvent } from '../../core/object-event.js';

/**
 * A version moved between the local disk and the remote tier (docs/notifications.md "Which operation fires which
 * event"): a RestoreObject accepted, a restore (or read-through) that made the version local, a lifecycle transition
 * that offloaded it. `restoreExpiry` (epoch ms) is when a restored copy returns to the remote tier.
 */
export interface ResidencyChange {
  name: 'ObjectRestore:Post' | 'ObjectRestore:Completed' | 'LifecycleTransition';
  bucket: string;
  key: string;
  versionId: string;
  size: number;
  etag: string;
  restoreExpiry?: number;
  /** The version's storage class (a tiered version keeps the class its transition gave it). */
  storageClass: string;
}

export interface EventSink {
  /**
   * Called inside the transaction that commits the change, before it commits: durable side effects (the webhook
   * outbox row) are written here so they commit, or roll back, with the change. Synchronous; must not await. A
   * throw rolls the whole change back.
   */
  inTransaction(event: ObjectEvent): void;
  /** Called once the transaction has committed (not yet fsynced). Never throws, never blocks. */
  afterCommit(event: ObjectEvent): void;
  /**
   * Called inside the transaction that changes the tags of a key's current version (no event is emitted for a tag
   * change, but a mirror must follow it). Synchronous; a throw rolls the change back. Optional.
   */
  tagsChanged?(bucket: string, key: string): void;
  /** As tagsChanged, for a change of the ACL of a key's current version (PutObjectAcl). Optional. */
  aclChanged?(bucket: string, key: string): void;
  /** Called inside the transaction that records a change of a version's residency (tiering). Optional. */
  residencyChanged?(change: ResidencyChange): void;
  /**
   * Wraps a transaction body that may run later, batched with other writers' (MetadataStore.transactionShared), so
   * that it sees its own caller's request origin (lib/request-origin.ts). Optional; absent: the body as it is.
   */
  bindToCaller?<T>(fn: () => T): () => T;
}

/** The residency change of a version row: its identity, size and ETag, and the change's name. */
export function residencyOf(
  row: { bucket: string; key: string; versionId: string; size: number; etag: string; storageClass: string },
  change: Pick<ResidencyChange, 'name' | 'restoreExpiry'>,
): ResidencyChange {
  const { bucket, key, versionId, size, etag, storageClass } = row;
  return { bucket, key, versionId, size, etag, storageClass, ...change };
}

/** The sink of a service built without events (unit tests, tools). */
export const NO_EVENTS: EventSink = {
  inTransaction: () => undefined,
  afterCommit: () => undefined,
};
