// The bucket and object routes describe themselves completely: the OpenAPI document @fastify/swagger generates from
// their schemas passes a real validator (OpenAPI 3.0 and 3.1), and every operation has an id, tags and a summary.

import SwaggerParser from '@apidevtools/swagger-parser';
import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { bucketsRoutes } from './buckets.js';
import { objectsRoutes } from './objects.js';

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  responses?: Record<string, unknown>;
}

async function document(openapi: string): Promise<{ paths: Record<string, Record<string, Operation>> }> {
  const app = Fastify();
  await app.register(swagger, { openapi: { openapi, info: { title: 'store admin', version: '0' } } });
  await app.register(
    async (scope) => {
      // Building the routes needs no services: handlers only run on requests.
      bucketsRoutes(scope, {} as never);
      objectsRoutes(scope, {} as never);
    },
    { prefix: '/api/admin' },
  );
  await app.ready();
  const doc = structuredClone(app.swagger()) as unknown as { paths: Record<string, Record<string, Operation>> };
  await app.close();
  return doc;
}

describe('bucket and object routes in OpenAPI', () => {
  it.each(['3.0.3', '3.1.0'])(
    'validate as OpenAPI %s with an id, tags, summary and an error response on every operation',
    async (version) => {
      const doc = await document(version);
      await SwaggerParser.validate(structuredClone(doc) as never);
      const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
      expect(operations.length).toBeGreaterThanOrEqual(38);
      const ids = operations.map((op) => op.operationId);
      expect(new Set(ids).size).toBe(ids.length);
      for (const op of operations) {
        expect(op.operationId).toEqual(expect.any(String));
        expect(op.tags?.length, op.operationId).toBeGreaterThan(0);
        expect(op.summary, op.operationId).toEqual(expect.any(String));
        expect(Object.keys(op.responses ?? {}), op.operationId).toContain('401');
      }
      const upload = doc.paths['/api/admin/buckets/{name}/objects/content']?.['put'] as {
        requestBody?: { content?: Record<string, unknown> };
      };
      expect(Object.keys(upload.requestBody?.content ?? {})).toEqual(['*/*']);
    },
  );
});
