import { describe, expect, it } from 'vitest';
import type { CorsConfiguration } from '../../../core/cors.js';
import { buildCorsConfiguration, parseCorsConfiguration } from './config-cors.js';
import { codeOf } from '../../../../test/helpers/error-code.js';

const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const doc = (...rules: string[]): string => `<CORSConfiguration ${NS}>${rules.join('')}</CORSConfiguration>`;
const corsRule = (inner: string): string => `<CORSRule>${inner}</CORSRule>`;
const basic = '<AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>';

describe('parseCorsConfiguration', () => {
  it('parses the AWS sample', () => {
    const body = doc(
      corsRule(
        '<AllowedOrigin>http://www.example.com</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><AllowedMethod>POST</AllowedMethod>' +
          '<AllowedMethod>DELETE</AllowedMethod><AllowedHeader>*</AllowedHeader><MaxAgeSeconds>3000</MaxAgeSeconds>' +
          '<ExposeHeader>x-amz-server-side-encryption</ExposeHeader><ExposeHeader>x-amz-request-id</ExposeHeader>',
      ),
      corsRule(`<ID>read</ID>${basic}`),
    );
    expect(parseCorsConfiguration(body)).toEqual({
      rules: [
        {
          allowedOrigins: ['http://www.example.com'],
          allowedMethods: ['PUT', 'POST', 'DELETE'],
          allowedHeaders: ['*'],
          exposeHeaders: ['x-amz-server-side-encryption', 'x-amz-request-id'],
          maxAgeSeconds: 3000,
        },
        { id: 'read', allowedOrigins: ['*'], allowedMethods: ['GET'], allowedHeaders: [], exposeHeaders: [] },
      ],
    });
  });

  it.each([
    ['an empty body', '', 'MissingRequestBodyError'],
    ['no rules', doc(), 'MalformedXML'],
    ['101 rules', doc(...Array.from({ length: 101 }, () => corsRule(basic))), 'MalformedXML'],
    ['a rule without an origin', doc(corsRule('<AllowedMethod>GET</AllowedMethod>')), 'MalformedXML'],
    ['a rule without a method', doc(corsRule('<AllowedOrigin>*</AllowedOrigin>')), 'MalformedXML'],
    [
      'an unsupported method',
      doc(corsRule('<AllowedOrigin>*</AllowedOrigin><AllowedMethod>OPTIONS</AllowedMethod>')),
      'InvalidRequest',
    ],
    [
      'an origin with two wildcards',
      doc(corsRule('<AllowedOrigin>*example*.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod>')),
      'InvalidRequest',
    ],
    ['a header with two wildcards', doc(corsRule(`${basic}<AllowedHeader>**</AllowedHeader>`)), 'InvalidRequest'],
    ['a non-integer MaxAgeSeconds', doc(corsRule(`${basic}<MaxAgeSeconds>1h</MaxAgeSeconds>`)), 'MalformedXML'],
    ['a negative MaxAgeSeconds', doc(corsRule(`${basic}<MaxAgeSeconds>-1</MaxAgeSeconds>`)), 'InvalidArgument'],
    [
      'two MaxAgeSeconds',
      doc(corsRule(`${basic}<MaxAgeSeconds>1</MaxAgeSeconds><MaxAgeSeconds>2</MaxAgeSeconds>`)),
      'MalformedXML',
    ],
    [
      'an element inside an origin',
      doc(corsRule('<AllowedOrigin><x/></AllowedOrigin><AllowedMethod>GET</AllowedMethod>')),
      'MalformedXML',
    ],
    ['a repeated ID', doc(corsRule(`<ID>a</ID>${basic}`), corsRule(`<ID>a</ID>${basic}`)), 'InvalidArgument'],
  ])('refuses %s', (_name, body, code) => {
    expect(codeOf(() => parseCorsConfiguration(body))).toBe(code);
  });
});

describe('buildCorsConfiguration', () => {
  const config: CorsConfiguration = {
    rules: [
      {
        id: 'site & co',
        allowedOrigins: ['https://*.example.com', 'http://localhost:3000'],
        allowedMethods: ['GET', 'PUT', 'HEAD'],
        allowedHeaders: ['x-amz-*', 'content-type'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 0,
      },
      { allowedOrigins: ['*'], allowedMethods: ['GET'], allowedHeaders: [], exposeHeaders: [] },
    ],
  };

  it('escapes text and writes every list', () => {
    const xml = buildCorsConfiguration(config);
    expect(xml).toContain(`<CORSConfiguration ${NS}><CORSRule><ID>site &amp; co</ID>`);
    expect(xml).toContain('<MaxAgeSeconds>0</MaxAgeSeconds>');
    expect(xml).toContain('<CORSRule><AllowedMethod>GET</AllowedMethod><AllowedOrigin>*</AllowedOrigin></CORSRule>');
  });

  it('round-trips', () => {
    expect(parseCorsConfiguration(buildCorsConfiguration(config))).toEqual(config);
  });
});
