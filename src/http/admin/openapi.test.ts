import type { RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { completeRouteSchema } from './openapi.js';
import { ErrorBody } from './routes/schemas.js';

function route(
  method: string,
  config: Record<string, boolean>,
  schema: Record<string, unknown> = {},
): RouteOptions & { schema: Record<string, unknown> } {
  const r = { method, url: '/x', handler: () => undefined, config, schema } as unknown as RouteOptions & {
    schema: Record<string, unknown>;
  };
  completeRouteSchema(r);
  return r;
}
const statuses = (r: { schema: Record<string, unknown> }): string[] =>
  Object.keys(r.schema['response'] as object).sort();

describe('completeRouteSchema', () => {
  it('adds 401, 403, 400 and 429 to a gated write, and the bearer requirement', () => {
    const r = route('POST', {}, { response: { 201: {} } });
    expect(statuses(r)).toEqual(['201', '400', '401', '403', '429']);
    expect(r.schema['security']).toEqual([{ bearerAuth: [] }]);
  });

  it('adds no 403 to a read or a self-service write', () => {
    expect(statuses(route('GET', {}, { response: { 200: {} } }))).toEqual(['200', '401', '429']);
    const self = route('POST', { selfService: true }, { response: { 204: {} } });
    expect(statuses(self)).toEqual(['204', '400', '401', '429']);
    expect(self.schema['x-self-service']).toBe(true);
  });

  it('adds no 401 or 403 to a public route, and nothing throttle-related to an unthrottled one', () => {
    const r = route('POST', { public: true }, { response: { 200: {} } });
    expect(statuses(r)).toEqual(['200', '400', '429']);
    expect(r.schema['security']).toEqual([]);
    expect(r.schema['x-public']).toBe(true);
    expect(statuses(route('GET', { public: true, unthrottled: true }, { response: { 200: {} } }))).toEqual(['200']);
  });

  it('adds 400 to a read with parameters', () => {
    expect(statuses(route('GET', {}, { params: {}, response: { 200: {} } }))).toContain('400');
  });

  it('keeps what the route declared, describing bare error bodies without touching the shared schema', () => {
    const custom = { ...ErrorBody, description: 'mine' };
    const r = route('DELETE', {}, { response: { 204: {}, 409: ErrorBody, 403: custom, 429: ErrorBody } });
    const response = r.schema['response'] as Record<string, Record<string, unknown>>;
    expect(response['403']).toBe(custom);
    expect(response['409']?.['description']).toMatch(/conflicts/);
    expect(response['429']?.['headers']).toHaveProperty('retry-after');
    expect((ErrorBody as Record<string, unknown>)['description']).toBeUndefined();
  });

  it('gives a route without a schema one', () => {
    const r = { method: 'GET', url: '/x', handler: () => undefined } as unknown as RouteOptions;
    completeRouteSchema(r);
    expect(Object.keys((r.schema as { response: object }).response)).toEqual(['401', '429']);
  });
});
