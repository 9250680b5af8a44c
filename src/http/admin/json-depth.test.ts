import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminErrorHandler } from './error-json.js';
import { installJsonDepthLimit, MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

describe('nestsDeeperThan', () => {
  it('counts brackets outside strings only', () => {
    expect(nestsDeeperThan('{"a":[[1]]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[[[1]]]}', 3)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${'['.repeat(500)}"}`, 3)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\"${'['.repeat(500)}"}`, 3)).toBe(false);
    expect(nestsDeeperThan('['.repeat(10), 9)).toBe(true);
  });
});

describe('the admin JSON parser', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    await app.register(async (scope) => {
      scope.setErrorHandler(adminErrorHandler());
      installJsonDepthLimit(scope);
      scope.post('/echo', async (req) => ({ got: req.body }));
    });
    await app.ready();
  });
  afterAll(async () => app.close());

  const post = (payload: string) =>
    app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });

  it('parses ordinary documents', async () => {
    const res = await post('{"Statement":[{"Condition":{"StringLike":{"s3:prefix":["a/*"]}}}]}');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ got: { Statement: [{ Condition: { StringLike: { 's3:prefix': ['a/*'] } } }] } });
  });

  it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels with a 400 envelope, however deep (no stack overflow)`, async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      const res = await post(`{"policy":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'ValidationError', statusCode: 400 });
    }
  });

  it('keeps Fastify’s prototype-poisoning refusal and its malformed-JSON 400', async () => {
    expect((await post('{"__proto__":{"admin":true}}')).statusCode).toBe(400);
    expect((await post('{"constructor":{"prototype":{"admin":true}}}')).statusCode).toBe(400);
    expect((await post('{"a":')).statusCode).toBe(400);
  });
});
