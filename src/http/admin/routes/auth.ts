// Sign-in: POST /auth/login (public) and GET /auth/me.

import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AdminAuthService } from '../../../services/admin-auth-service.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import { principalOf } from '../admin-principal.js';
import { ErrorBody } from './schemas.js';

export interface AuthRouteDeps {
  auth: AdminAuthService;
  audit: AuditSink;
}

const LoginBody = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 256 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);
const TokenResponse = Type.Object({ accessToken: Type.String(), expiresIn: Type.Integer() });
const Identity = Type.Object({
  id: Type.String(),
  username: Type.String(),
  mustChangePassword: Type.Boolean(),
  role: Type.Union([Type.Literal('full-admin'), Type.Literal('read-only')]),
});

export function authRoutes(app: FastifyInstance, deps: AuthRouteDeps): void {
  app.post('/auth/login', {
    config: { public: true },
    schema: {
      operationId: 'login', tags: ['auth'], summary: 'Sign in with a username and password',
      body: LoginBody, response: { 200: TokenResponse, 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
    },
  }, async (req) => {
    const { username, password } = req.body as { username: string; password: string };
    try {
      const user = await deps.auth.verifyPassword(username, password);
      deps.audit.record({ event: 'auth.login', subject: user.username });
      return await deps.auth.issueAccessToken(user);
    } catch (err) {
      deps.audit.record({ event: 'auth.login_failed', subject: username });
      throw err;
    }
  });

  app.get('/auth/me', {
    schema: { operationId: 'me', tags: ['auth'], summary: 'The signed-in admin', response: { 200: Identity, 401: ErrorBody } },
  }, async (req) => {
    const me = principalOf(req);
    const row = deps.auth.findUser(me.id);
    return { id: me.id, username: me.username, role: me.role, mustChangePassword: row?.mustChangePassword ?? false };
  });
}
