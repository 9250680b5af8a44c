import { describe, expect, it } from 'vitest';
import {
  CORS_VARY,
  type CorsConfiguration,
  type CorsRule,
  isCorsMethod,
  matchActual,
  matchPreflight,
  parseCorsMethod,
  parseRequestHeaderList,
  preflightRefusal,
  validateCorsConfiguration,
} from './cors.js';
import { codeOf } from '../../test/helpers/error-code.js';

const rule = (over: Partial<CorsRule>): CorsRule => ({
  allowedOrigins: ['https://app.example.com'],
  allowedMethods: ['GET'],
  allowedHeaders: [],
  exposeHeaders: [],
  ...over,
});

const config: CorsConfiguration = {
  rules: [
    rule({
      id: 'site',
      allowedOrigins: ['https://*.example.com'],
      allowedMethods: ['GET', 'PUT'],
      allowedHeaders: ['x-amz-*', 'Content-Type'],
      exposeHeaders: ['ETag', 'x-amz-version-id'],
      maxAgeSeconds: 600,
    }),
    rule({
      id: 'uploads',
      allowedOrigins: ['http://localhost:*'],
      allowedMethods: ['POST', 'PUT'],
      allowedHeaders: ['*'],
    }),
    rule({ id: 'anyone', allowedOrigins: ['*'], allowedMethods: ['HEAD', 'GET'] }),
  ],
};

describe('validateCorsConfiguration', () => {
  it('accepts a realistic configuration and 100 rules', () => {
    expect(codeOf(() => validateCorsConfiguration(config))).toBeUndefined();
    expect(
      codeOf(() => validateCorsConfiguration({ rules: Array.from({ length: 100 }, () => rule({})) })),
    ).toBeUndefined();
  });

  it.each<[string, CorsRule[], string]>([
    ['no rules', [], 'MalformedXML'],
    ['101 rules', Array.from({ length: 101 }, () => rule({})), 'MalformedXML'],
    ['a rule without origins', [rule({ allowedOrigins: [] })], 'MalformedXML'],
    ['a rule without methods', [rule({ allowedMethods: [] })], 'MalformedXML'],
    ['an unsupported method', [rule({ allowedMethods: ['GET', 'PATCH' as 'GET'] })], 'InvalidRequest'],
    ['a lower-case method', [rule({ allowedMethods: ['get' as 'GET'] })], 'InvalidRequest'],
    ['two wildcards in an origin', [rule({ allowedOrigins: ['https://*.example.*'] })], 'InvalidRequest'],
    ['two wildcards in a header', [rule({ allowedHeaders: ['x-*-*'] })], 'InvalidRequest'],
    ['a 256-character ID', [rule({ id: 'i'.repeat(256) })], 'InvalidArgument'],
    ['a repeated ID', [rule({ id: 'a' }), rule({ id: 'a' })], 'InvalidArgument'],
    ['a negative MaxAgeSeconds', [rule({ maxAgeSeconds: -1 })], 'InvalidArgument'],
    ['a fractional MaxAgeSeconds', [rule({ maxAgeSeconds: 1.5 })], 'InvalidArgument'],
  ])('refuses %s', (_name, rules, code) => {
    expect(codeOf(() => validateCorsConfiguration({ rules }))).toBe(code);
  });

  it('uses S3 messages', () => {
    expect(() => parseCorsMethod('PATCH')).toThrow(
      'Found unsupported HTTP method in CORS config. Unsupported method is PATCH',
    );
    expect(() => validateCorsConfiguration({ rules: [rule({ allowedOrigins: ['*a*'] })] })).toThrow(
      'AllowedOrigin "*a*" can not have more than one wildcard.',
    );
  });
});

describe('matchPreflight', () => {
  type Row = [string, string, string, string[], string | undefined];
  const rows: Row[] = [
    ['a subdomain under the wildcard', 'https://app.example.com', 'GET', [], 'site'],
    ['a deeper subdomain (the * spans dots)', 'https://a.b.example.com', 'PUT', [], 'site'],
    ['the wildcard needs the dot before the domain', 'https://example.com', 'PUT', [], undefined],
    ['another scheme does not match', 'http://app.example.com', 'PUT', [], undefined],
    ['origins compare with case', 'https://APP.EXAMPLE.COM', 'PUT', [], undefined],
    ['a look-alike domain', 'https://example.com.evil.org', 'PUT', [], undefined],
    ['a method no rule allows', 'https://app.example.com', 'DELETE', [], undefined],
    [
      'headers matched by wildcard and case-insensitively',
      'https://app.example.com',
      'PUT',
      ['X-Amz-Meta-Name', 'content-type'],
      'site',
    ],
    ['a header no pattern allows', 'https://app.example.com', 'PUT', ['authorization'], undefined],
    ['first matching rule wins, later ones are not consulted', 'https://app.example.com', 'GET', [], 'site'],
    [
      'a later rule when earlier ones do not match the method',
      'http://localhost:3000',
      'POST',
      ['authorization', 'x-anything'],
      'uploads',
    ],
    ['an origin port under a wildcard', 'http://localhost:8080', 'PUT', [], 'uploads'],
    ['falls through to the * rule', 'https://other.org', 'HEAD', [], 'anyone'],
    ['the * rule matches the null origin', 'null', 'GET', [], 'anyone'],
    ['the * rule allows no headers', 'https://other.org', 'GET', ['x-custom'], undefined],
    ['a method only a skipped rule allows', 'https://other.org', 'PUT', [], undefined],
  ];
  // eslint-disable-next-line max-params -- it.each passes one argument per table column
  it.each(rows)('%s', (_name, origin, method, requestHeaders, ruleId) => {
    expect(matchPreflight(config, { origin, method, requestHeaders })?.rule.id).toBe(ruleId);
  });

  it('answers with S3 headers for an echoed origin', () => {
    const match = matchPreflight(config, {
      origin: 'https://app.example.com',
      method: 'PUT',
      requestHeaders: ['Content-Type', 'X-Amz-Meta-Name'],
    });
    expect(match?.responseHeaders).toEqual({
      'Access-Control-Allow-Origin': 'https://app.example.com',
      'Access-Control-Allow-Methods': 'GET, PUT',
      'Access-Control-Allow-Headers': 'content-type, x-amz-meta-name',
      'Access-Control-Expose-Headers': 'ETag, x-amz-version-id',
      'Access-Control-Max-Age': '600',
      'Access-Control-Allow-Credentials': 'true',
      Vary: CORS_VARY,
    });
  });

  it('answers * without credentials when the rule allows any origin', () => {
    expect(matchPreflight(config, { origin: 'https://other.org', method: 'HEAD' })?.responseHeaders).toEqual({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'HEAD, GET',
      Vary: CORS_VARY,
    });
  });

  it('echoes the origin when a rule names it beside *', () => {
    const both: CorsConfiguration = { rules: [rule({ allowedOrigins: ['*', 'https://app.example.com'] })] };
    const headers = matchPreflight(both, { origin: 'https://app.example.com', method: 'GET' })?.responseHeaders;
    expect(headers?.['Access-Control-Allow-Origin']).toBe('https://app.example.com');
    expect(headers?.['Access-Control-Allow-Credentials']).toBe('true');
    expect(
      matchPreflight(both, { origin: 'https://x.org', method: 'GET' })?.responseHeaders['Access-Control-Allow-Origin'],
    ).toBe('*');
  });

  it('lets a wildcard stand for the empty run', () => {
    const exact: CorsConfiguration = { rules: [rule({ allowedOrigins: ['https://app*.example.com'] })] };
    expect(matchPreflight(exact, { origin: 'https://app.example.com', method: 'GET' })).toBeDefined();
  });

  it('matches nothing without a configuration', () => {
    expect(matchPreflight(undefined, { origin: 'https://app.example.com', method: 'GET' })).toBeUndefined();
  });
});

describe('matchActual', () => {
  it('gives the matching rule headers', () => {
    expect(matchActual(config, { origin: 'https://app.example.com', method: 'GET' })).toMatchObject({
      'Access-Control-Allow-Origin': 'https://app.example.com',
      'Access-Control-Expose-Headers': 'ETag, x-amz-version-id',
    });
  });

  it('gives nothing when no rule matches', () => {
    expect(matchActual(config, { origin: 'https://app.example.com', method: 'DELETE' })).toBeUndefined();
    expect(matchActual(config, { origin: 'https://example.org', method: 'PUT' })).toBeUndefined();
  });
});

describe('helpers', () => {
  it('reads Access-Control-Request-Headers', () => {
    expect(parseRequestHeaderList('Content-Type, X-Amz-Date,,  authorization ')).toEqual([
      'content-type',
      'x-amz-date',
      'authorization',
    ]);
    expect(parseRequestHeaderList(undefined)).toEqual([]);
    expect(parseRequestHeaderList('')).toEqual([]);
  });

  it('knows the five methods', () => {
    expect(isCorsMethod('DELETE')).toBe(true);
    expect(isCorsMethod('OPTIONS')).toBe(false);
    expect(isCorsMethod(undefined)).toBe(false);
  });

  it('builds S3 refusals', () => {
    const notAllowed = preflightRefusal('not-allowed', { method: 'DELETE', resourceType: 'OBJECT' });
    expect([notAllowed.code, notAllowed.statusCode]).toEqual(['AccessForbidden', 403]);
    expect(notAllowed.message).toMatch(/^CORSResponse: This CORS request is not allowed/);
    expect(notAllowed.details).toEqual({ Method: 'DELETE', ResourceType: 'OBJECT' });
    const disabled = preflightRefusal('not-enabled', { method: 'GET', resourceType: 'BUCKET' });
    expect([disabled.code, disabled.message]).toEqual([
      'AccessForbidden',
      'CORSResponse: CORS is not enabled for this bucket.',
    ]);
    const noOrigin = preflightRefusal('no-origin');
    expect([noOrigin.code, noOrigin.statusCode]).toEqual(['BadRequest', 400]);
    expect(preflightRefusal('no-method', { method: 'PATCH' }).message).toBe(
      'Invalid Access-Control-Request-Method: PATCH',
    );
    expect(preflightRefusal('no-method').message).toBe('Invalid Access-Control-Request-Method: null');
  });
});
