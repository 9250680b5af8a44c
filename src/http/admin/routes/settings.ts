// Admin self-service under /settings: change-password. Every signed-in admin may call it (read-only included),
// and it acts only on the caller's own account.

import { Type } from '@sinclair/typebox';
import { MAX_PASSWORD_LENGTH } from '../../../core/password-policy.js';
import type { AdminAuthService } from '../../../services/identity/admin-auth-service.js';
import type { AdminUsersService } from '../../../services/identity/admin-users-service.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import { principalOf } from '../admin-principal.js';
import type { AdminThrottle } from '../admin-throttle.js';
import { sessionIdOf } from '../session-of.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { ErrorBody, noContent } from './schemas.js';

export interface SettingsRouteDeps {
  users: AdminUsersService;
  auth: AdminAuthService;
  audit: AuditSink;
  throttle: AdminThrottle;
}

const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
    newPassword: Type.String({
      minLength: 1,
      maxLength: MAX_PASSWORD_LENGTH,
      description: 'At least 12 characters; see docs/admin-api.md',
    }),
  },
  { additionalProperties: false },
);

export function settingsRoutes(app: AdminApp, deps: SettingsRouteDeps): void {
  app.post(
    '/settings/change-password',
    {
      config: { selfService: true },
      schema: {
        operationId: 'changePassword',
        tags: ['settings'],
        summary: 'Change your own password; clears mustChangePassword and ends your other sessions',
        body: ChangePasswordBody,
        response: { 204: noContent('Changed'), 400: ErrorBody, 409: ErrorBody, 429: ErrorBody },
      },
    },
    async (req, reply) => {
      // The current password is a guessing target for whoever holds a stolen access token: same limit as login.
      deps.throttle.checkPasswordAttempt(req);
      const me = principalOf(req);
      const { currentPassword, newPassword } = req.body;
      const keepSessionId = sessionIdOf(req, deps.auth);
      await deps.users.changePassword(me.id, { currentPassword, newPassword, keepSessionId });
      deps.audit.record({ event: 'user.password_changed', subject: me.username, details: { userId: me.id } });
      return reply.status(204).send();
    },
  );
}
