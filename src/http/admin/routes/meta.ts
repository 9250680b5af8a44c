// About the admin API itself: GET /version and GET /openapi.json (both need a token; SPEC lists only health,
// ready, login and refresh as public).

import { Type } from '@sinclair/typebox';
import type { AdminApp } from '../typebox-type-provider.js';

export interface MetaRouteDeps {
  build: { version: string; build: string };
}

const Version = Type.Object({
  version: Type.String({ description: 'The package version' }),
  build: Type.String({ description: "The git commit, or 'unknown'" }),
  node: Type.String({ description: 'The Node.js version running the server' }),
});

export function metaRoutes(app: AdminApp, deps: MetaRouteDeps): void {
  app.get('/version', {
    schema: { operationId: 'version', tags: ['meta'], summary: 'Version, build and Node.js version', response: { 200: Version } },
  }, async () => ({ version: deps.build.version, build: deps.build.build, node: process.version }));

  app.get('/openapi.json', {
    schema: {
      operationId: 'openapi', tags: ['meta'], summary: 'This API as an OpenAPI 3 document',
      response: { 200: Type.Object({}, { additionalProperties: true, description: 'The OpenAPI 3.0 document' }) },
    },
  }, async (_req, reply) => {
    // A string payload skips the response serializer, which would otherwise re-walk the whole document.
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger()));
  });
}
