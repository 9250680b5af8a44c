// The session (refresh family) of the current request's access token, for logout and change-password.

import type { FastifyRequest } from 'fastify';
import type { AdminAuthService } from '../../services/identity/admin-auth-service.js';

/** The `sid` of the request's bearer token. Only meaningful on a route the auth hook has authenticated. */
export function sessionIdOf(req: FastifyRequest, auth: Pick<AdminAuthService, 'sessionIdOf'>): string | undefined {
  const bearer = /^Bearer +(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer === undefined ? undefined : auth.sessionIdOf(bearer);
}
