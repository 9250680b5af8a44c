// Admin sign-in: the bootstrap admin, password verification (argon2id) and short-lived access tokens (JWT,
// HS256 with JWT_SECRET; algorithm, issuer, audience and expiry checked on every verify). The caller's role is read
// from the database on every authenticated request, never from the token, so a demotion applies at once.

import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { AdminIdentity } from '../core/admin-identity.js';
import { AppError } from '../core/errors.js';
import { uuidv7 } from '../lib/ids.js';
import type { AdminUserRow } from '../storage/db/admin-users-repo.js';
import type { MetadataStore } from '../storage/db/metadata-store.js';

export const TOKEN_ISSUER = 'store';
export const TOKEN_AUDIENCE = 'store-admin';
export const ACCESS_TOKEN_TTL_SECONDS = 900;

export interface AdminAuthOptions {
  meta: MetadataStore;
  jwtSecret: string;
  now?: () => number;
  accessTokenTtlSeconds?: number;
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
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly opts: AdminAuthOptions) {
    this.key = new TextEncoder().encode(opts.jwtSecret);
    this.now = opts.now ?? Date.now;
    this.accessTokenTtlSeconds = opts.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
  }

  /** Inserts the bootstrap full admin (ADMIN_USERNAME, ADMIN_PASSWORD_HASH) unless a user of that name exists. */
  ensureBootstrapAdmin(username: string, passwordHash: string): void {
    const { meta } = this.opts;
    meta.transaction(() => {
      if (meta.adminUsers.findByUsername(username)) return;
      const now = this.now();
      meta.adminUsers.insert({ id: uuidv7(now), username, passwordHash, role: 'full-admin', mustChangePassword: false, createdAt: now, updatedAt: now });
    });
  }

  /**
   * The user whose password matches, or Unauthorized (401) with one message for an unknown user and a wrong
   * password alike. An unknown user still costs one argon2 verification.
   */
  async verifyPassword(username: string, password: string): Promise<AdminUserRow> {
    const user = this.opts.meta.adminUsers.findByUsername(username);
    const hash = user?.passwordHash ?? (await this.unknownUserHash());
    const ok = await argon2.verify(hash, password).catch(() => false);
    if (!user || !ok) throw new AppError('Unauthorized', { message: 'Invalid username or password' });
    return user;
  }

  /** A signed access token for the user (subject = user id). */
  async issueAccessToken(user: AdminUserRow): Promise<IssuedAccessToken> {
    const iat = Math.floor(this.now() / 1000);
    const accessToken = await new SignJWT({ username: user.username })
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
   * expired, wrong-algorithm or wrong-audience token, or one whose user no longer exists.
   */
  async authenticate(token: string): Promise<AdminIdentity> {
    let subject: string | undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.now()),
      });
      subject = payload.sub;
    } catch (err) {
      const expired = err instanceof joseErrors.JWTExpired;
      throw new AppError('Unauthorized', { message: expired ? 'The access token has expired' : 'The access token is not valid' });
    }
    const user = subject === undefined ? undefined : this.opts.meta.adminUsers.findById(subject);
    if (!user) throw new AppError('Unauthorized', { message: 'The access token is not valid' });
    return { id: user.id, username: user.username, role: user.role };
  }

  /** The stored user row (for fields the token does not carry, such as mustChangePassword). */
  findUser(id: string): AdminUserRow | undefined {
    return this.opts.meta.adminUsers.findById(id);
  }

  private unknownUserHash(): Promise<string> {
    this.dummyHash ??= argon2.hash(randomBytes(16).toString('base64url'), { type: argon2.argon2id });
    return this.dummyHash;
  }
}
