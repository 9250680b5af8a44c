// Share links (docs/admin-api.md "Share links", docs/decisions.md "Share links sign with a key of their own"): each
// presigned URL the admin API hands out is signed by an access key created for it alone, allowed only that one
// request on that one object and expiring with the URL. Listing shows them; revoking deletes the key, so the URL
// fails at once. Expired links are deleted whenever links are created or listed.

import { AppError } from '../../core/errors.js';
import { escapeForPattern } from '../../core/policy/context.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ShareLinkRow } from '../../storage/db/share-links-repo.js';
import type { AccessKeyService } from './access-key-service.js';
import { validatePermissions } from './access-key-permissions.js';

export type ShareLink = ShareLinkRow;

export interface CreateShareInput {
  bucket: string;
  key: string;
  versionId?: string | undefined;
  method: 'GET' | 'PUT';
  /** Seconds from now, 1..604800 (checked by the route's schema). */
  expiresIn: number;
  createdBy: string;
}

/** A new link's signing credentials: the route signs the URL with them and forgets the secret. */
export interface IssuedShare {
  link: ShareLink;
  secretAccessKey: string;
}

/** Who asks: full admins see and revoke every link, read-only admins their own. */
export interface ShareViewer {
  username: string;
  isFullAdmin: boolean;
}

export interface ShareLinkServiceOptions {
  meta: MetadataStore;
  keys: AccessKeyService;
  now?: () => number;
}

const notFound = (id: string): AppError => new AppError('NotFound', { message: `No share link ${id}` });

/**
 * The one grant a link's key carries. GetObjectVersion too for a link to one version; the resource is the object's
 * exact ARN (wildcard characters in the key matched literally), so the key can read nothing else even in principle.
 */
export function sharePolicy(input: Pick<CreateShareInput, 'bucket' | 'key' | 'versionId' | 'method'>): {
  policy: Record<string, unknown>;
} {
  const actions =
    input.method === 'PUT'
      ? ['s3:PutObject']
      : input.versionId
        ? ['s3:GetObject', 's3:GetObjectVersion']
        : ['s3:GetObject'];
  return {
    policy: {
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'ShareLink',
          Effect: 'Allow',
          Action: actions,
          Resource: `arn:aws:s3:::${input.bucket}/${escapeForPattern(input.key)}`,
        },
      ],
    },
  };
}

export class ShareLinkService {
  private readonly meta: MetadataStore;
  private readonly now: () => number;

  constructor(private readonly opts: ShareLinkServiceOptions) {
    this.meta = opts.meta;
    this.now = opts.now ?? Date.now;
  }

  /** Creates the link's key and row in one transaction; the caller signs the URL with the returned secret. */
  create(input: CreateShareInput): IssuedShare {
    this.sweep();
    const createdAt = this.now();
    const expiresAt = createdAt + input.expiresIn * 1000;
    const permissions = validatePermissions(sharePolicy(input));
    let link: ShareLink | undefined;
    const issued = this.opts.keys.createInternal({
      name: `share ${input.method} ${input.bucket}/${input.key}`.slice(0, 128),
      permissions,
      expiresAt,
      createdBy: input.createdBy,
      alsoInsert: (accessKeyId) => {
        link = {
          accessKeyId,
          bucket: input.bucket,
          key: input.key,
          versionId: input.versionId,
          method: input.method,
          createdBy: input.createdBy,
          createdAt,
          expiresAt,
        };
        this.meta.shareLinks.insert(link);
      },
    });
    if (link === undefined) throw new Error('share link row not written');
    return { link, secretAccessKey: issued.secretAccessKey };
  }

  /** The live links the viewer may see, newest first; optionally only those of one bucket (and key). */
  list(viewer: ShareViewer, filter: { bucket?: string | undefined; key?: string | undefined } = {}): ShareLink[] {
    this.sweep();
    return this.meta.shareLinks
      .list()
      .filter((l) => viewer.isFullAdmin || l.createdBy === viewer.username)
      .filter((l) => filter.bucket === undefined || l.bucket === filter.bucket)
      .filter((l) => filter.key === undefined || l.key === filter.key);
  }

  /**
   * Deletes the link and its key: the URL fails on its next use. Throws NotFound, or Forbidden for a read-only admin
   * revoking a link someone else created.
   */
  revoke(accessKeyId: string, viewer: ShareViewer): ShareLink {
    const link = this.meta.transaction(() => {
      const found = this.meta.shareLinks.find(accessKeyId);
      if (found === undefined) throw notFound(accessKeyId);
      if (!viewer.isFullAdmin && found.createdBy !== viewer.username) {
        throw new AppError('Forbidden', { message: 'A read-only admin can revoke only the share links they created' });
      }
      this.meta.shareLinks.delete(accessKeyId);
      return found;
    });
    this.opts.keys.forget([accessKeyId]);
    return link;
  }

  /** Deletes every expired link and its key; returns how many. */
  sweep(): number {
    const ids = this.meta.transaction(() => this.meta.shareLinks.deleteExpired(this.now()));
    this.opts.keys.forget(ids);
    return ids.length;
  }
}
