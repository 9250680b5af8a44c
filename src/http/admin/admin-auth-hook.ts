// The admin plane's gate, run before every route: a Bearer access token on every non-public route, and 403 for a
// read-only admin on any method other than GET/HEAD (self-service, reads-only and own-grants routes excepted: those
// check what they must themselves). Other routes never check roles, so a new route cannot forget to.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AdminIdentity } from '../../core/admin-identity.js';
import { AppError } from '../../core/errors.js';
import './admin-principal.js';

export interface AdminAuthenticator {
  /** The identity behind a bearer token, with its current role; throws AppError Unauthorized. */
  authenticate(token: string): Promise<AdminIdentity>;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

function bearerToken(req: FastifyRequest): string {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header);
  if (!match?.[1]) throw new AppError('Unauthorized', { message: 'Send Authorization: Bearer <access token>' });
  return match[1];
}

export function installAdminAuth(app: FastifyInstance, auth: AdminAuthenticator): void {
  app.decorateRequest('admin', undefined);
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    // Unknown routes (no url) answer 404 in the envelope; public routes need no token, ticket routes check their own.
    if (req.routeOptions.url === undefined || config.public || (config.ticket && READ_METHODS.has(req.method))) return;
    req.admin = await auth.authenticate(bearerToken(req));
    const exempt = config.selfService === true || config.readsOnly === true || config.ownGrants === true;
    if (!READ_METHODS.has(req.method) && req.admin.role !== 'full-admin' && !exempt) {
      throw new AppError('Forbidden', { message: 'A read-only admin cannot change anything' });
    }
  });
}
