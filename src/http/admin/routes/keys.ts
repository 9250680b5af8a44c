// Scoped access keys: /keys (list, create), /keys/:id (get, update, revoke), rotate, the effective permissions and the
// permission simulator. A secret appears only in the create and rotate answers; audit records carry the id and name.

import type { Static } from '@sinclair/typebox';
import type {
  AccessKeyService,
  AccessKeyView,
  IssuedKey,
  KeyPermissions,
} from '../../../services/identity/access-key-service.js';
import type { KeyScope } from '../../../services/identity/access-key-permissions.js';
import type { AuditSink } from '../../../services/audit/audit-events.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import {
  Params,
  Scope,
  PermissionsView,
  KeyView,
  IssuedKeyView,
  KeyList,
  CreateBody,
  UpdateBody,
  Effective,
  SimulateBody,
  Simulation,
} from './key-schemas.js';
import { ErrorBody, noContent } from './schemas.js';

export interface KeysRouteDeps {
  keys: AccessKeyService;
  audit: AuditSink;
}

const TAGS = ['keys'];
const errors = (...codes: number[]): Record<number, typeof ErrorBody> =>
  Object.fromEntries(codes.map((c) => [c, ErrorBody]));

const iso = (ms: number): string => new Date(ms).toISOString();
/** A scope as its schema types it: the reply schema's array is mutable, the service's is not. */
const scopeView = ({ actions, ...rest }: KeyScope): Static<typeof Scope> =>
  actions ? { ...rest, actions: [...actions] } : rest;
const permissionsView = (p: KeyPermissions): Static<typeof PermissionsView> =>
  'scope' in p ? { scope: scopeView(p.scope) } : p;
function view(key: AccessKeyView): Static<typeof KeyView> {
  return {
    ...key,
    permissions: key.permissions === null ? null : permissionsView(key.permissions),
    createdAt: iso(key.createdAt),
    updatedAt: iso(key.updatedAt),
    lastUsedAt: key.lastUsedAt === undefined ? null : iso(key.lastUsedAt),
    expiresAt: key.expiresAt === undefined ? null : iso(key.expiresAt),
  };
}
/** A date-time from a body as epoch ms (null and absent pass through); the schema has checked its format. */
const epoch = (value: string | null | undefined): number | null | undefined =>
  value === undefined || value === null ? value : Date.parse(value);
const issued = (result: IssuedKey): Static<typeof IssuedKeyView> => ({
  ...view(result.key),
  secretAccessKey: result.secretAccessKey,
});

export function keysRoutes(app: AdminApp, deps: KeysRouteDeps): void {
  const record = (
    event: 'key.created' | 'key.updated' | 'key.rotated' | 'key.revoked',
    subject: string,
    key: AccessKeyView,
  ): void => deps.audit.record({ event, subject, details: { accessKeyId: key.accessKeyId, name: key.name } });

  app.get(
    '/keys',
    {
      schema: {
        operationId: 'listKeys',
        tags: TAGS,
        summary: 'List access keys (never their secrets)',
        response: { 200: KeyList, ...errors(401) },
      },
    },
    async () => ({ items: deps.keys.list().map(view) }),
  );

  app.post(
    '/keys',
    {
      schema: {
        operationId: 'createKey',
        tags: TAGS,
        summary: 'Create an access key; the answer carries its secret, shown only this once',
        body: CreateBody,
        response: { 201: IssuedKeyView, ...errors(400, 401, 403) },
      },
    },
    async (req, reply) => {
      const admin = principalOf(req);
      const result = deps.keys.create({ ...req.body, expiresAt: epoch(req.body.expiresAt) }, admin.username);
      record('key.created', admin.username, result.key);
      return reply.status(201).send(issued(result));
    },
  );

  app.get(
    '/keys/:id',
    {
      schema: {
        operationId: 'getKey',
        tags: TAGS,
        summary: 'One access key',
        params: Params,
        response: { 200: KeyView, ...errors(400, 401, 404) },
      },
    },
    async (req) => view(deps.keys.get(req.params.id)),
  );

  app.patch(
    '/keys/:id',
    {
      schema: {
        operationId: 'updateKey',
        tags: TAGS,
        summary: 'Change the name, description, enabled flag, permissions or expiry of an access key',
        params: Params,
        body: UpdateBody,
        response: { 200: KeyView, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const admin = principalOf(req);
      const key = deps.keys.update(req.params.id, { ...req.body, expiresAt: epoch(req.body.expiresAt) });
      record('key.updated', admin.username, key);
      return view(key);
    },
  );

  app.post(
    '/keys/:id/rotate',
    {
      schema: {
        operationId: 'rotateKey',
        tags: TAGS,
        summary: 'Issue a new secret (shown once); the old one stops working at once',
        params: Params,
        response: { 200: IssuedKeyView, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => {
      const admin = principalOf(req);
      const result = deps.keys.rotate(req.params.id);
      record('key.rotated', admin.username, result.key);
      return issued(result);
    },
  );

  app.delete(
    '/keys/:id',
    {
      schema: {
        operationId: 'revokeKey',
        tags: TAGS,
        summary: 'Revoke (delete) an access key; it stops working at once',
        params: Params,
        response: { 204: noContent('Revoked'), ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const admin = principalOf(req);
      const key = deps.keys.revoke(req.params.id);
      record('key.revoked', admin.username, key);
      return reply.status(204).send();
    },
  );

  app.get(
    '/keys/:id/permissions',
    {
      schema: {
        operationId: 'getKeyPermissions',
        tags: TAGS,
        summary: 'The policy in force for an access key',
        params: Params,
        response: { 200: Effective, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const { id } = req.params;
      const { scope, ...effective } = deps.keys.effectivePermissions(id);
      return { accessKeyId: id, ...effective, ...(scope ? { scope: scopeView(scope) } : {}) };
    },
  );

  app.post(
    '/keys/:id/simulate',
    {
      // A question, not a change: read-only admins may ask it too.
      config: { readsOnly: true },
      schema: {
        operationId: 'simulateKey',
        tags: TAGS,
        summary: 'Would this key be allowed one action? Answers the deciding statement',
        params: Params,
        body: SimulateBody,
        response: { 200: Simulation, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const body = req.body;
      return deps.keys.simulate(req.params.id, { ...body, bucket: body.bucket ?? '' });
    },
  );
}
