// Identity, built for app.ts (the composition root): scoped access keys, refresh sessions, admin login and users.

import type { Config } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import type { AuditService } from '../services/audit/audit-service.js';
import type { BucketService } from '../services/bucket-service.js';
import { AccessKeyService } from '../services/identity/access-key-service.js';
import { AdminAuthService } from '../services/identity/admin-auth-service.js';
import { AdminUsersService } from '../services/identity/admin-users-service.js';
import { argon2CostOf } from '../services/identity/password-hashing.js';
import { RefreshSessionService } from '../services/identity/refresh-session-service.js';
import { ShareLinkService } from '../services/identity/share-link-service.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';

export interface IdentityDeps {
  config: Config;
  logger: Logger;
  meta: MetadataStore;
  buckets: BucketService;
  audit: AuditService;
  /** The clock of access-key and share-link expiry (BuildOptions.keyClock); default Date.now. */
  keyClock?: (() => number) | undefined;
}

export interface IdentityServices {
  keys: AccessKeyService;
  /** Share links: presigned URLs signed by short-lived keys of their own. */
  shares: ShareLinkService;
  sessions: RefreshSessionService;
  auth: AdminAuthService;
  users: AdminUsersService;
}

export function buildIdentity(deps: IdentityDeps): IdentityServices {
  const { config, logger, meta, buckets, audit } = deps;
  // Scoped access keys: secrets sealed under KEY_ENCRYPTION_SECRET (default: the root secret); boot refuses a
  // secret that cannot open the stored keys.
  const keys = new AccessKeyService({
    meta,
    buckets,
    logger,
    rootAccessKeyId: config.ROOT_ACCESS_KEY_ID,
    encryptionSecret: config.KEY_ENCRYPTION_SECRET ?? config.ROOT_SECRET_ACCESS_KEY,
    ...(deps.keyClock ? { now: deps.keyClock } : {}),
  });
  keys.verifyEncryptionSecret();
  const shares = new ShareLinkService({ meta, keys, ...(deps.keyClock ? { now: deps.keyClock } : {}) });
  shares.sweep();
  const sessions = new RefreshSessionService({ meta, audit });
  // One argon2id cost for every admin password: the operator's, as ADMIN_PASSWORD_HASH carries it.
  const hashCost = argon2CostOf(config.ADMIN_PASSWORD_HASH);
  const auth = new AdminAuthService({ meta, sessions, jwtSecret: config.JWT_SECRET, hashCost });
  if (auth.ensureBootstrapAdmin(config.ADMIN_USERNAME, config.ADMIN_PASSWORD_HASH) === 'reset') {
    logger.warn(
      { username: config.ADMIN_USERNAME },
      'ADMIN_PASSWORD_HASH changed since the last boot: the bootstrap admin was reset to it',
    );
  }
  const users = new AdminUsersService({ meta, sessions, hashCost });
  return { keys, shares, sessions, auth, users };
}
