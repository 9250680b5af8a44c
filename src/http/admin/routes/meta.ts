// About the server itself: GET /version, GET /workers, GET /connection (what an S3 client is configured with) and
// GET /openapi.json (each needs a token; SPEC lists only health, ready, login and refresh as public).

import { Type } from '@sinclair/typebox';
import type { AdminApp } from '../typebox-type-provider.js';

/** One background worker (src/app/workers.ts). */
export interface WorkerState {
  name: string;
  enabled: boolean;
  running: boolean;
}

export interface MetaRouteDeps {
  build: { version: string; build: string };
  /** The background workers, in start order. */
  workers: () => WorkerState[];
  /** What S3 clients need besides a key: STORE_ENDPOINT (when set), STORE_REGION and MOUNT_PATH. */
  connection: { endpoint: string | undefined; region: string; mountPath: string };
}

const Connection = Type.Object({
  endpoint: Type.Union([Type.String(), Type.Null()], {
    description:
      'STORE_ENDPOINT as configured (a host name, or a URL); null when unset: clients then use the origin the ' +
      'console was loaded from',
  }),
  region: Type.String({ description: 'STORE_REGION: the region clients sign for' }),
  mountPath: Type.String({ description: "MOUNT_PATH: '' or a path such as /storage, the S3 plane's prefix" }),
});

const Workers = Type.Object({
  workers: Type.Array(
    Type.Object({
      name: Type.String({
        description:
          'blob-gc, lifecycle, audit-flush, usage-rollup, request-analytics, integrity, search-index, webhooks, replication-tiering or backup-schedule',
      }),
      enabled: Type.Boolean({ description: 'Whether this configuration runs it' }),
      running: Type.Boolean({ description: 'Whether it runs now (false before start and after stop)' }),
    }),
  ),
});

const Version = Type.Object({
  version: Type.String({ description: 'The package version' }),
  build: Type.String({ description: "The git commit, or 'unknown'" }),
  node: Type.String({ description: 'The Node.js version running the server' }),
});

export function metaRoutes(app: AdminApp, deps: MetaRouteDeps): void {
  app.get(
    '/version',
    {
      schema: {
        operationId: 'version',
        tags: ['meta'],
        summary: 'Version, build and Node.js version',
        response: { 200: Version },
      },
    },
    async () => ({ version: deps.build.version, build: deps.build.build, node: process.version }),
  );

  app.get(
    '/workers',
    {
      schema: {
        operationId: 'workers',
        tags: ['meta'],
        summary: 'The background workers: which this configuration runs',
        response: { 200: Workers },
      },
    },
    async () => ({ workers: deps.workers() }),
  );

  app.get(
    '/connection',
    {
      schema: {
        operationId: 'connection',
        tags: ['meta'],
        summary: 'What an S3 client needs besides an access key: the configured endpoint, the region, MOUNT_PATH',
        response: { 200: Connection },
      },
    },
    async () => ({
      endpoint: deps.connection.endpoint ?? null,
      region: deps.connection.region,
      mountPath: deps.connection.mountPath,
    }),
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'openapi',
        tags: ['meta'],
        summary: 'This API as an OpenAPI 3 document',
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'The OpenAPI 3.0 document' }) },
      },
    },
    async (_req, reply) => {
      // A string payload skips the response serializer, which would otherwise re-walk the whole document.
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger()));
    },
  );
}
