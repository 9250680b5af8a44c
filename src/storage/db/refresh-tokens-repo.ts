// Refresh-token rows (table refresh_tokens): only the SHA-256 digest of each token is stored. A family is one
// sign-in and every token rotated from it; revoking a family revokes the session and its access tokens.

import type { Db } from './database.js';

export interface RefreshTokenRow {
  tokenHash: string;
  familyId: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
  /** Exchanged for a newer token of the same family: presenting it again is reuse. */
  rotated: boolean;
  revoked: boolean;
}

interface RawToken {
  token_hash: string;
  family_id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  rotated: number;
  revoked: number;
}

const toRow = (raw: RawToken): RefreshTokenRow => ({
  tokenHash: raw.token_hash,
  familyId: raw.family_id,
  userId: raw.user_id,
  createdAt: raw.created_at,
  expiresAt: raw.expires_at,
  rotated: raw.rotated === 1,
  revoked: raw.revoked === 1,
});

export class RefreshTokensRepo {
  private readonly byHashStmt;
  private readonly insertStmt;
  private readonly rotateStmt;
  private readonly revokeFamilyStmt;
  private readonly revokeUserStmt;
  private readonly revokeUserExceptStmt;
  private readonly liveFamilyStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.byHashStmt = db.prepare<[string], RawToken>('SELECT * FROM refresh_tokens WHERE token_hash = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO refresh_tokens (token_hash, family_id, user_id, created_at, expires_at)
       VALUES (@tokenHash, @familyId, @userId, @createdAt, @expiresAt)`,
    );
    this.rotateStmt = db.prepare<[string]>(
      'UPDATE refresh_tokens SET rotated = 1 WHERE token_hash = ? AND rotated = 0',
    );
    this.revokeFamilyStmt = db.prepare<[string]>(
      'UPDATE refresh_tokens SET revoked = 1 WHERE family_id = ? AND revoked = 0',
    );
    this.revokeUserStmt = db.prepare<[string]>(
      'UPDATE refresh_tokens SET revoked = 1 WHERE user_id = ? AND revoked = 0',
    );
    this.revokeUserExceptStmt = db.prepare<[string, string]>(
      'UPDATE refresh_tokens SET revoked = 1 WHERE user_id = ? AND family_id <> ? AND revoked = 0',
    );
    this.liveFamilyStmt = db
      .prepare<[string, string, number], number>(
        'SELECT 1 FROM refresh_tokens WHERE family_id = ? AND user_id = ? AND revoked = 0 AND expires_at > ? LIMIT 1',
      )
      .pluck();
    this.pruneStmt = db.prepare<[number]>('DELETE FROM refresh_tokens WHERE expires_at <= ?');
  }

  findByHash(tokenHash: string): RefreshTokenRow | undefined {
    const raw = this.byHashStmt.get(tokenHash);
    return raw && toRow(raw);
  }

  insert(row: Omit<RefreshTokenRow, 'rotated' | 'revoked'>): void {
    this.insertStmt.run(row);
  }

  /** Marks the token exchanged. False when it already was (a concurrent exchange won). */
  markRotated(tokenHash: string): boolean {
    return this.rotateStmt.run(tokenHash).changes === 1;
  }

  /** Revokes every token of the family; returns how many were still live. */
  revokeFamily(familyId: string): number {
    return this.revokeFamilyStmt.run(familyId).changes;
  }

  /** Revokes every family of the user, or every family but `keepFamilyId`. */
  revokeUser(userId: string, keepFamilyId?: string): number {
    return keepFamilyId === undefined
      ? this.revokeUserStmt.run(userId).changes
      : this.revokeUserExceptStmt.run(userId, keepFamilyId).changes;
  }

  /** True while the family (the session) belongs to the user, is not revoked and has an unexpired token. */
  isFamilyLive(familyId: string, userId: string, now: number): boolean {
    return this.liveFamilyStmt.get(familyId, userId, now) !== undefined;
  }

  /** Deletes tokens that expired at or before `cutoff`. */
  pruneExpired(cutoff: number): number {
    return this.pruneStmt.run(cutoff).changes;
  }
}
