// Who is calling the admin API. The authentication hook (admin-auth-hook.ts) sets `req.admin` on every
// non-public route; route handlers read it with `principalOf` (for audit subjects and self-service rules).

import type { FastifyRequest } from 'fastify';
import type { AdminIdentity } from '../../core/admin-identity.js';
import { AppError } from '../../core/errors.js';

export { ADMIN_ROLES, type AdminRole } from '../../core/admin-identity.js';
export type AdminPrincipal = AdminIdentity;

declare module 'fastify' {
  interface FastifyRequest {
    admin: AdminPrincipal | undefined;
  }
  interface FastifyContextConfig {
    /** A public route (health, ready, login, refresh): no Bearer token is required. */
    public?: boolean;
    /**
     * A state-changing route every signed-in admin may call on their own behalf (logout, change-password):
     * the read-only 403 rule does not apply. Each such route must act only on the caller's own account.
     */
    selfService?: boolean;
    /**
     * A POST that changes nothing (a question with a body, such as a key's permission simulation): every signed-in
     * admin may call it, read-only included. The route must not write anything.
     */
    readsOnly?: boolean;
    /**
     * A state-changing route every signed-in admin may call for grants of their own (a share link): the route itself
     * refuses, with Forbidden, whatever needs a full admin.
     */
    ownGrants?: boolean;
    /**
     * A GET whose credential is a one-time ticket in its path, issued by an authenticated call (a download link the
     * browser opens itself): no Bearer token is required; the route answers 401 for a ticket it does not honour.
     */
    ticket?: boolean;
  }
}

/** The authenticated admin of a non-public route. Throws Unauthorized (401) if the hook did not set one. */
export function principalOf(req: FastifyRequest): AdminPrincipal {
  if (!req.admin) throw new AppError('Unauthorized');
  return req.admin;
}
