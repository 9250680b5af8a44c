// What an S3 handler receives (a verified request resolved to its operation) and what it returns (a response value).

import type { NotificationService } from '../../services/notifications/notification-service.js';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { BucketService } from '../../services/bucket-service.js';
import type { ListingService } from '../../services/objects/listing-service.js';
import type { MultipartService } from '../../services/objects/multipart-service.js';
import type { ObjectService } from '../../services/objects/object-service.js';
import type { TierService } from '../../services/tiering/tier-service.js';
import type { VerifiedRequest } from '../../sigv4/types.js';
import type { RequestAuthorizer } from './authorize.js';
import type { Endpoint, Query } from './endpoints.js';

export interface S3Services {
  buckets: BucketService;
  objects: ObjectService;
  listing: ListingService;
  multipart: MultipartService;
  /** Read-through and RestoreObject for tiered objects; absent when tiering was never built (tests). */
  tiering?: TierService;
  /** Bucket notifications (Put/GetBucketNotificationConfiguration); absent in tests that build none. */
  notifications?: NotificationService;
}

export interface Owner {
  id: string;
  displayName: string;
}

export interface S3Context<E extends Endpoint = Endpoint> {
  req: IncomingMessage;
  endpoint: E;
  query: Query;
  requestId: string;
  auth: VerifiedRequest;
  /**
   * The request's authorizer: the operation's own checks have passed before the handler runs; a handler that must
   * decide more (DeleteObjects, per key) asks it. PostObject's is the anonymous caller's: the form names the signer.
   */
  authz: RequestAuthorizer;
  services: S3Services;
  owner: Owner;
  region: string;
  /** The bucket the Host named (virtual-hosted style); undefined for path-style. */
  hostBucket?: string;
}

export interface S3Response {
  status: number;
  headers?: Record<string, string | number | undefined>;
  body?: string | Buffer | Readable;
}

/** A header's value, with repeated headers joined by ',' (Node joins most already). */
export function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
