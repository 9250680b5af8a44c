// Admin users and roles: /users list, create, get, change role, reset password, delete. The gate (admin-auth-hook)
// already refuses read-only admins here; the service enforces the last-full-admin and no-self-deletion rules.

import { Type } from '@sinclair/typebox';
import { MAX_PASSWORD_LENGTH } from '../../../core/password-policy.js';
import type { AdminUsersService, WithTemporaryPassword } from '../../../services/identity/admin-users-service.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { AdminUser, Role, UserWithPassword } from './identity-schemas.js';
import { ErrorBody, noContent } from './schemas.js';

export interface UsersRouteDeps {
  users: AdminUsersService;
  audit: AuditSink;
}

const Password = Type.String({
  minLength: 1,
  maxLength: MAX_PASSWORD_LENGTH,
  description: 'At least 12 characters; see docs/admin-api.md',
});
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const CreateBody = Type.Object(
  {
    username: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$',
      description: '1-64 letters, digits, . _ @ -',
    }),
    role: Role,
    password: Type.Optional(Password),
  },
  { additionalProperties: false },
);
const RoleBody = Type.Object({ role: Role }, { additionalProperties: false });
const ResetBody = Type.Object({ password: Type.Optional(Password) }, { additionalProperties: false });

export function usersRoutes(app: AdminApp, deps: UsersRouteDeps): void {
  app.get(
    '/users',
    {
      schema: {
        operationId: 'listUsers',
        tags: ['users'],
        summary: 'List admin users',
        response: { 200: Type.Object({ items: Type.Array(AdminUser) }) },
      },
    },
    async () => ({ items: deps.users.list() }),
  );

  app.post(
    '/users',
    {
      schema: {
        operationId: 'createUser',
        tags: ['users'],
        summary: 'Create an admin user who must change the password at first sign-in',
        body: CreateBody,
        response: { 201: UserWithPassword, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const created: WithTemporaryPassword = await deps.users.create(body);
      deps.audit.record({
        event: 'user.created',
        subject: principalOf(req).username,
        details: { userId: created.user.id, username: created.user.username, role: created.user.role },
      });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/users/:id',
    {
      schema: {
        operationId: 'getUser',
        tags: ['users'],
        summary: 'One admin user',
        params: IdParams,
        response: { 200: AdminUser, 404: ErrorBody },
      },
    },
    async (req) => deps.users.get(req.params.id),
  );

  app.patch(
    '/users/:id',
    {
      schema: {
        operationId: 'updateUserRole',
        tags: ['users'],
        summary: "Change a user's role (applies to their next request)",
        params: IdParams,
        body: RoleBody,
        response: { 200: AdminUser, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (req) => {
      const { id } = req.params;
      const { role } = req.body;
      const { user, previousRole } = deps.users.setRole(id, role);
      if (previousRole !== role) {
        deps.audit.record({
          event: 'user.role_changed',
          subject: principalOf(req).username,
          details: { userId: id, username: user.username, from: previousRole, to: role },
        });
      }
      return user;
    },
  );

  app.post(
    '/users/:id/reset-password',
    {
      schema: {
        operationId: 'resetUserPassword',
        tags: ['users'],
        summary: 'Set a new temporary password and end all of the user’s sessions',
        params: IdParams,
        body: ResetBody,
        response: { 200: UserWithPassword, 404: ErrorBody },
      },
    },
    async (req) => {
      const { id } = req.params;
      // The body is optional: a POST without one generates a temporary password.
      const password = req.body?.password;
      const reset = await deps.users.resetPassword(id, password);
      deps.audit.record({
        event: 'user.password_reset',
        subject: principalOf(req).username,
        details: { userId: id, username: reset.user.username },
      });
      return reset;
    },
  );

  app.delete(
    '/users/:id',
    {
      schema: {
        operationId: 'deleteUser',
        tags: ['users'],
        summary: 'Delete an admin user (not yourself, not the last full admin)',
        params: IdParams,
        response: { 204: noContent('Deleted'), 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (req, reply) => {
      const me = principalOf(req);
      const deleted = deps.users.delete(me.id, req.params.id);
      deps.audit.record({
        event: 'user.deleted',
        subject: me.username,
        details: { userId: deleted.id, username: deleted.username },
      });
      return reply.status(204).send();
    },
  );
}
