// Admin sign-in: the bootstrap admin, password verification (argon2id) and short-lived access tokens (JWT,
// HS256 with JWT_SECRET; algorithm, issuer, audience and expiry checked on every verify). The caller's role is read
// from the database on every authenticated request, never from the token, so a demotion applies at once; so is
// the token's session (its refresh family, claim `sid`), so logout and revocation end its access tokens too.

import { createHash } from 'node:crypto';
import argon2 from 'argon2';
import { decodeJwt, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { AdminIdentity } from '../../core/admin-identity.js';
import { AppError } from '../../core/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { AdminUserRow } from '../../storage/db/admin-users-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import { standInHash, type Argon2Cost } from './password-hashing.js';
import type { RefreshSessionService } from './refresh-session-service.js';

export const TOKEN_ISSUER = 'store';
export const TOKEN_AUDIENCE = 'store-admin';
export const ACCESS_TOKEN_TTL_SECONDS = 900;

/** The instance fact recording which ADMIN_USERNAME / ADMIN_PASSWORD_HASH the last boot applied (a digest). */
const BOOTSTRAP_RECORD = 'bootstrap_admin_env';

/** What `ensureBootstrapAdmin` did. */
export type BootstrapOutcome = 'created' | 'reset' | 'unchanged';

export interface AdminAuthOptions {
  meta: MetadataStore;
  sessions: RefreshSessionService;
  jwtSecret: string;
  now?: () => number;
  accessTokenTtlSeconds?: number;
  /** The instance's argon2id cost (password-hashing.ts), for the stand-in hash of unknown usernames. */
  hashCost?: Argon2Cost;
}

export interface IssuedAccessToken {
  accessToken: string;
  expiresIn: number;
}

export class AdminAuthService {
  private readonly key: Uint8Array;
  private readonly now: () => number;
  readonly accessTokenTtlSeconds: number;
  /** Verified against when the username is unknown, so a failed login costs the same either way. */
  private readonly unknownUserHash: string;

  constructor(private readonly opts: AdminAuthOptions) {
    this.key = new TextEncoder().encode(opts.jwtSecret);
    this.now = opts.now ?? Date.now;
    this.accessTokenTtlSeconds = opts.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
    this.unknownUserHash = standInHash(opts.hashCost);
  }

  /**
   * Applies the environment's bootstrap admin (ADMIN_USERNAME with ADMIN_PASSWORD_HASH) when it differs from what
   * the last boot applied: the operator set or rotated it. Then the user is created, or has its password set to
   * the hash, mustChangePassword cleared, its role restored to full-admin and its sessions revoked (break-glass
   * recovery). An unchanged environment leaves the user alone, so a password changed through the API, or a
   * deliberate deletion, survives restarts (docs/decisions.md "Bootstrap admin").
   */
  ensureBootstrapAdmin(username: string, passwordHash: string): BootstrapOutcome {
    const { meta } = this.opts;
    const fingerprint = createHash('sha256').update(`${username}\n${passwordHash}`).digest('hex');
    return meta.transaction((): BootstrapOutcome => {
      const recorded = meta.instance.get(BOOTSTRAP_RECORD);
      const user = meta.adminUsers.findByUsername(username);
      meta.instance.set(BOOTSTRAP_RECORD, fingerprint);
      // Nothing recorded but the user exists: a data directory from before the record; its boot applied this env.
      if (recorded === fingerprint || (recorded === undefined && user)) return 'unchanged';
      const now = this.now();
      if (!user) {
        meta.adminUsers.insert({
          id: uuidv7(now),
          username,
          passwordHash,
          role: 'full-admin',
          mustChangePassword: false,
          createdAt: now,
          updatedAt: now,
        });
        return 'created';
      }
      meta.adminUsers.setPassword(user.id, { passwordHash: passwordHash, mustChangePassword: false }, now);
      meta.adminUsers.setRole(user.id, 'full-admin', now);
      this.opts.sessions.revokeUser(user.id);
      return 'reset';
    });
  }

  /**
   * The user whose password matches, or Unauthorized (401) with one message for an unknown user and a wrong
   * password alike. An unknown user still costs one argon2 verification.
   */
  async verifyPassword(username: string, password: string): Promise<AdminUserRow> {
    const user = this.opts.meta.adminUsers.findByUsername(username);
    const hash = user?.passwordHash ?? this.unknownUserHash;
    const ok = await argon2.verify(hash, password).catch(() => false);
    if (!user || !ok) throw new AppError('Unauthorized', { message: 'Invalid username or password' });
    return user;
  }

  /** A signed access token for the user (subject = user id) in the session `sessionId` (a refresh family). */
  async issueAccessToken(user: { id: string; username: string }, sessionId: string): Promise<IssuedAccessToken> {
    const iat = Math.floor(this.now() / 1000);
    const accessToken = await new SignJWT({ username: user.username, sid: sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.accessTokenTtlSeconds)
      .setJti(uuidv7(this.now()))
      .sign(this.key);
    return { accessToken, expiresIn: this.accessTokenTtlSeconds };
  }

  /**
   * The identity behind a bearer token, with the role as stored now. Unauthorized (401) for a malformed, tampered,
   * expired, wrong-algorithm or wrong-audience token, one whose user no longer exists, or one whose session was
   * revoked (logout, password reset, refresh-token reuse) or has expired.
   */
  async authenticate(token: string): Promise<AdminIdentity> {
    let subject: string | undefined;
    let session: unknown;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        requiredClaims: ['exp', 'sub', 'sid'],
        currentDate: new Date(this.now()),
      });
      subject = payload.sub;
      session = payload['sid'];
    } catch (err) {
      const expired = err instanceof joseErrors.JWTExpired;
      throw new AppError('Unauthorized', {
        message: expired ? 'The access token has expired' : 'The access token is not valid',
      });
    }
    const user = subject === undefined ? undefined : this.opts.meta.adminUsers.findById(subject);
    if (!user || typeof session !== 'string')
      throw new AppError('Unauthorized', { message: 'The access token is not valid' });
    if (!this.opts.sessions.isLive(session, user.id))
      throw new AppError('Unauthorized', { message: 'The session has ended; sign in again' });
    return { id: user.id, username: user.username, role: user.role };
  }

  /**
   * The session id (`sid`) of a bearer token the auth hook has already verified on this request. Not a check:
   * never call it on a token that was not verified.
   */
  sessionIdOf(verifiedToken: string): string | undefined {
    const sid = decodeJwt(verifiedToken)['sid'];
    return typeof sid === 'string' ? sid : undefined;
  }

  /** The stored user row (for fields the token does not carry, such as mustChangePassword). */
  findUser(id: string): AdminUserRow | undefined {
    return this.opts.meta.adminUsers.findById(id);
  }
}
