// What the admin object routes (objects.ts, object-settings.ts, object-content.ts) are given, and the bucket name
// of a request under /buckets/:name/objects.

import type { Static } from '@sinclair/typebox';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import type { BucketService } from '../../../services/bucket-service.js';
import type { ListingService } from '../../../services/objects/listing-service.js';
import type { MultipartService } from '../../../services/objects/multipart-service.js';
import type { ObjectService } from '../../../services/objects/object-service.js';
import type { ShareLinkService } from '../../../services/identity/share-link-service.js';
import type { BucketNameParams } from './bucket-schemas.js';

/**
 * What presigned URLs (share links, share-links.ts) are made with: the service that creates each link's own signing
 * key, the region, and MOUNT_PATH (part of every signed path).
 */
export interface PresignDeps {
  shares: ShareLinkService;
  region: string;
  mountPath: string;
  /** The signing time (tests pin it); default the wall clock. */
  now?: () => Date;
}

export interface ObjectRouteDeps {
  buckets: BucketService;
  objects: ObjectService;
  listing: ListingService;
  multipart: MultipartService;
  audit: AuditSink;
  presign: PresignDeps;
}

/** The bucket named in the path. */
export const bucketOf = (req: { params: Static<typeof BucketNameParams> }): string => req.params.name;
