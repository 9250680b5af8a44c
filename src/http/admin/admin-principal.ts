// Who is calling the admin API. The authentication hook (admin-auth) sets `req.admin` on every non-public route;
// route handlers read it with `principalOf` (for audit subjects and self-service rules).

import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';

export type AdminRole = 'full-admin' | 'read-only';
export const ADMIN_ROLES: readonly AdminRole[] = ['full-admin', 'read-only'];

export interface AdminPrincipal {
  /** The admin user's id (stable across renames). */
  id: string;
  username: string;
  /** Read from the database on every request, so a demotion applies to the next request. */
  role: AdminRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    admin: AdminPrincipal | undefined;
  }
  interface FastifyContextConfig {
    /** A public route (health, ready, login, refresh): no Bearer token is required. */
    public?: boolean;
  }
}

/** The authenticated admin of a non-public route. Throws Unauthorized (401) if the hook did not set one. */
export function principalOf(req: FastifyRequest): AdminPrincipal {
  if (!req.admin) throw new AppError('Unauthorized');
  return req.admin;
}
