// Refresh sessions: the refresh token behind the store_refresh cookie. A family is one sign-in and every token
// rotated from it; only SHA-256 digests are stored. Exchanging a token rotates it; presenting an already rotated
// token again is reuse (the token leaked, or was replayed), which revokes the whole family. Access tokens carry
// their family id, and a revoked family's access tokens stop working on their next request.

import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { AuditSink } from '../audit/audit-events.js';

export const REFRESH_TOKEN_TTL_SECONDS = 7 * 24 * 3600;

export interface RefreshSessionOptions {
  meta: MetadataStore;
  audit: AuditSink;
  now?: () => number;
  ttlSeconds?: number;
}

export interface IssuedRefreshToken {
  /** The secret for the cookie; never stored, never logged. */
  token: string;
  familyId: string;
  userId: string;
  maxAgeSeconds: number;
}

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

type Exchange =
  | { kind: 'rotated'; issued: IssuedRefreshToken }
  | { kind: 'reused'; userId: string; familyId: string }
  | { kind: 'refused'; message: string };

export class RefreshSessionService {
  private readonly now: () => number;
  readonly ttlSeconds: number;

  constructor(private readonly opts: RefreshSessionOptions) {
    this.now = opts.now ?? Date.now;
    this.ttlSeconds = opts.ttlSeconds ?? REFRESH_TOKEN_TTL_SECONDS;
  }

  /** Starts a new family (a sign-in) for the user. Also drops tokens that have expired, everyone's. */
  start(userId: string): IssuedRefreshToken {
    const { meta } = this.opts;
    return meta.transaction(() => {
      meta.refreshTokens.pruneExpired(this.now());
      return this.insert(userId, uuidv7(this.now()));
    });
  }

  /**
   * Exchanges a refresh token for the next one of its family. Unauthorized (401) for an unknown, malformed,
   * revoked or expired token, and for reuse of a rotated one, which also revokes the family and is audited
   * (`auth.refresh_reused`).
   */
  rotate(token: string | undefined): IssuedRefreshToken {
    if (token === undefined || !TOKEN_SHAPE.test(token))
      throw new AppError('Unauthorized', { message: 'No valid refresh token' });
    const { meta } = this.opts;
    const hash = digest(token);
    const outcome = meta.transaction((): Exchange => {
      const row = meta.refreshTokens.findByHash(hash);
      if (!row) return { kind: 'refused', message: 'No valid refresh token' };
      if (row.revoked) return { kind: 'refused', message: 'The refresh token has been revoked' };
      if (row.rotated) {
        meta.refreshTokens.revokeFamily(row.familyId);
        return { kind: 'reused', userId: row.userId, familyId: row.familyId };
      }
      if (row.expiresAt <= this.now()) return { kind: 'refused', message: 'The refresh token has expired' };
      if (!meta.refreshTokens.markRotated(hash)) return { kind: 'refused', message: 'No valid refresh token' };
      return { kind: 'rotated', issued: this.insert(row.userId, row.familyId) };
    });
    if (outcome.kind === 'rotated') return outcome.issued;
    if (outcome.kind === 'reused') {
      const user = meta.adminUsers.findById(outcome.userId);
      this.opts.audit.record({
        event: 'auth.refresh_reused',
        subject: user?.username ?? outcome.userId,
        details: { familyId: outcome.familyId },
      });
      throw new AppError('Unauthorized', {
        message: 'The refresh token was already used; the session has been revoked',
      });
    }
    throw new AppError('Unauthorized', { message: outcome.message });
  }

  /** The family of a presented token, if the token is known (whatever its state). */
  familyOf(token: string | undefined): { familyId: string; userId: string } | undefined {
    if (token === undefined || !TOKEN_SHAPE.test(token)) return undefined;
    const row = this.opts.meta.refreshTokens.findByHash(digest(token));
    return row && { familyId: row.familyId, userId: row.userId };
  }

  /** Ends one session (logout). Returns false when it was not live. */
  revokeFamily(familyId: string): boolean {
    return this.opts.meta.transaction(() => this.opts.meta.refreshTokens.revokeFamily(familyId)) > 0;
  }

  /** Ends every session of the user, or every one but `keepFamilyId` (call inside the caller's transaction). */
  revokeUser(userId: string, keepFamilyId?: string): number {
    return this.opts.meta.refreshTokens.revokeUser(userId, keepFamilyId);
  }

  /** True while the session is live: access tokens of a revoked or expired family are refused. */
  isLive(familyId: string, userId: string): boolean {
    return this.opts.meta.refreshTokens.isFamilyLive(familyId, userId, this.now());
  }

  private insert(userId: string, familyId: string): IssuedRefreshToken {
    const token = randomBytes(32).toString('base64url');
    const now = this.now();
    this.opts.meta.refreshTokens.insert({
      tokenHash: digest(token),
      familyId,
      userId,
      createdAt: now,
      expiresAt: now + this.ttlSeconds * 1000,
    });
    return { token, familyId, userId, maxAgeSeconds: this.ttlSeconds };
  }
}
