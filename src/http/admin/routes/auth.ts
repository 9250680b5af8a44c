// Sign-in and sessions: POST /auth/login and /auth/refresh (public), POST /auth/logout and GET /auth/me.
// The refresh token travels only in the store_refresh cookie (HttpOnly, Secure, SameSite=Strict), scoped to the
// auth routes under MOUNT_PATH so the browser sends it nowhere else.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError, isAppError } from '../../../core/errors.js';
import type { AdminAuthService } from '../../../services/identity/admin-auth-service.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import type { IssuedRefreshToken, RefreshSessionService } from '../../../services/identity/refresh-session-service.js';
import { parseCookies, serializeCookie } from '../../shared/cookies.js';
import { principalOf } from '../admin-principal.js';
import type { AdminThrottle } from '../admin-throttle.js';
import { REFRESH_COOKIE_SCHEME } from '../openapi.js';
import { sessionIdOf } from '../session-of.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { Identity, TokenResponse } from './identity-schemas.js';
import { ErrorBody, noContent } from './schemas.js';

export const REFRESH_COOKIE = 'store_refresh';

export interface AuthRouteDeps {
  auth: AdminAuthService;
  audit: AuditSink;
  sessions: RefreshSessionService;
  throttle: AdminThrottle;
  /** MOUNT_PATH ('' at the root): the cookie's Path is `${mountPath}/api/admin/auth`. */
  mountPath: string;
}

const LoginBody = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 256 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);
const withCookie = (description: string) => ({
  ...TokenResponse,
  description,
  headers: {
    'set-cookie': Type.String({
      description: `${REFRESH_COOKIE}=<token>; HttpOnly; Secure; SameSite=Strict; Path=<mount>/api/admin/auth`,
    }),
  },
});
const NoContent = noContent('Done; the refresh cookie is cleared');

export function authRoutes(app: AdminApp, deps: AuthRouteDeps): void {
  const cookiePath = `${deps.mountPath}/api/admin/auth`;
  const setCookie = (reply: FastifyReply, issued: IssuedRefreshToken): void => {
    void reply.header(
      'set-cookie',
      serializeCookie(REFRESH_COOKIE, issued.token, {
        path: cookiePath,
        maxAge: issued.maxAgeSeconds,
        httpOnly: true,
        secure: true,
        sameSite: 'Strict',
      }),
    );
  };
  const clearedCookie = (): string =>
    serializeCookie(REFRESH_COOKIE, '', {
      path: cookiePath,
      maxAge: 0,
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });
  const presented = (req: FastifyRequest): string | undefined => parseCookies(req.headers.cookie).get(REFRESH_COOKIE);

  app.post(
    '/auth/login',
    {
      config: { public: true },
      // Counted before the body is even parsed: malformed attempts count too.
      onRequest: async (req) => deps.throttle.checkPasswordAttempt(req),
      schema: {
        operationId: 'login',
        tags: ['auth'],
        summary: 'Sign in with a username and password; sets the refresh cookie',
        body: LoginBody,
        response: { 200: withCookie('Signed in'), 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
      },
    },
    async (req, reply) => {
      const { username, password } = req.body;
      const ip = deps.throttle.clientOf(req);
      let user;
      try {
        user = await deps.auth.verifyPassword(username, password);
      } catch (err) {
        deps.audit.record({ event: 'auth.login_failed', subject: username, details: { ip } });
        throw err;
      }
      const session = deps.sessions.start(user.id);
      const access = await deps.auth.issueAccessToken(user, session.familyId);
      setCookie(reply, session);
      deps.audit.record({ event: 'auth.login', subject: user.username, details: { ip, sessionId: session.familyId } });
      return access;
    },
  );

  app.post(
    '/auth/refresh',
    {
      config: { public: true },
      schema: {
        operationId: 'refresh',
        tags: ['auth'],
        summary: 'Exchange the refresh cookie for a new access token; rotates the cookie',
        security: [{ [REFRESH_COOKIE_SCHEME]: [] }],
        response: { 200: withCookie('A new access token and a rotated cookie'), 401: ErrorBody },
      },
    },
    async (req, reply) => {
      let issued: IssuedRefreshToken;
      try {
        issued = deps.sessions.rotate(presented(req));
      } catch (err) {
        // A refused cookie is useless to the browser: clear it with the 401.
        if (isAppError(err))
          throw new AppError(err.code, { message: err.message, headers: { 'set-cookie': clearedCookie() } });
        throw err;
      }
      const user = deps.auth.findUser(issued.userId);
      if (!user)
        throw new AppError('Unauthorized', {
          message: 'No valid refresh token',
          headers: { 'set-cookie': clearedCookie() },
        });
      const access = await deps.auth.issueAccessToken(user, issued.familyId);
      setCookie(reply, issued);
      return access;
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { selfService: true },
      schema: {
        operationId: 'logout',
        tags: ['auth'],
        summary:
          "End this session: the access token's session and the presented refresh cookie's are revoked; the cookie is cleared",
        response: { 204: NoContent, 401: ErrorBody },
      },
    },
    async (req, reply) => {
      const me = principalOf(req);
      const sessionIds = new Set<string>();
      const own = sessionIdOf(req, deps.auth);
      if (own) sessionIds.add(own);
      // Only a cookie of the caller's own account is honoured: a stray cookie of another admin is just cleared.
      const cookieFamily = deps.sessions.familyOf(presented(req));
      if (cookieFamily?.userId === me.id) sessionIds.add(cookieFamily.familyId);
      for (const id of sessionIds) deps.sessions.revokeFamily(id);
      deps.audit.record({ event: 'auth.logout', subject: me.username, details: { sessionIds: [...sessionIds] } });
      return reply.status(204).header('set-cookie', clearedCookie()).send();
    },
  );

  app.get(
    '/auth/me',
    {
      schema: {
        operationId: 'me',
        tags: ['auth'],
        summary: 'The signed-in admin',
        response: { 200: Identity, 401: ErrorBody },
      },
    },
    async (req) => {
      const me = principalOf(req);
      const row = deps.auth.findUser(me.id);
      return { id: me.id, username: me.username, role: me.role, mustChangePassword: row?.mustChangePassword ?? false };
    },
  );
}
