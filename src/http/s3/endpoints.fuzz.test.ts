// Properties of the S3 plane's request parsing on arbitrary input: any method, path and query resolve to a typed
// operation or an AppError (InvalidURI, MethodNotAllowed, NotImplemented, InvalidArgument, InvalidRequest), and
// resolving never depends on anything but what was sent; the x-amz-tagging header format round-trips any valid tag
// set, and garbage in it is InvalidArgument or InvalidTag.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTaggingHeader, parseTaggingHeader } from '../../core/tagging.js';
import { parseQuery, resolveEndpoint, resolveResource } from './endpoints.js';
import { expectCodeIn, fragmentString, outcomeOf } from '../../../test/helpers/fuzz.js';

const RUNS = 1000;
const SUBRESOURCES = [
  'acl',
  'tagging',
  'versioning',
  'versions',
  'uploads',
  'uploadId=u',
  'partNumber=1',
  'delete',
  'lifecycle',
  'cors',
  'policy',
  'policyStatus',
  'encryption',
  'object-lock',
  'retention',
  'legal-hold',
  'location',
  'list-type=2',
  'restore',
  'attributes',
  'website',
  'select',
  'torrent',
  'notification',
  'ownershipControls',
  'versionId=null',
  'x-id=GetObject',
  'prefix=a',
  '%',
  '%zz',
  '%E9',
  '+',
  '=',
];
const pathArb = fragmentString([
  '/',
  'b',
  'bucket',
  'k',
  '%2F',
  '%',
  '%zz',
  '%E9',
  '%C3%A9',
  '..',
  '.',
  '//',
  ' ',
  'é',
  '😀',
  '?',
]);
const queryArb = fc
  .array(fc.oneof(fc.constantFrom(...SUBRESOURCES), fc.string({ maxLength: 6 })), { maxLength: 4 })
  .map((ps) => ps.join('&'));
const methodArb = fc.constantFrom(
  'GET',
  'PUT',
  'POST',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'TRACE',
  'CONNECT',
  'PROPFIND',
);

describe('resolving S3 requests', () => {
  it('any method, path and query give an operation or a documented AppError', () => {
    fc.assert(
      // eslint-disable-next-line max-params -- fast-check passes one argument per arbitrary
      fc.property(methodArb, pathArb, queryArb, fc.boolean(), (method, path, query, copy) => {
        const parsed = outcomeOf(() => parseQuery(query));
        expectCodeIn(parsed, ['InvalidURI']);
        if (!parsed.ok) return;
        const endpoint = outcomeOf(() =>
          resolveEndpoint({ method, path, query: parsed.value }, { hasCopySource: copy }),
        );
        expectCodeIn(endpoint, [
          'InvalidURI',
          'MethodNotAllowed',
          'NotImplemented',
          'InvalidArgument',
          'InvalidRequest',
        ]);
        if (endpoint.ok && 'bucket' in endpoint.value) {
          // The resource is what the path says, decoded once.
          const resource = resolveResource(path);
          expect(endpoint.value.bucket).toBe(resource.bucket);
          if ('key' in endpoint.value) expect(endpoint.value.key).toBe(resource.key);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the x-amz-tagging header', () => {
  const tagChar = fc.constantFrom(...'abcXYZ019 _.:/=+-@', 'é', '日', '\u00a0');
  const tagText = (min: number, max: number) => fc.string({ minLength: min, maxLength: max, unit: tagChar });
  const tagsArb = fc.uniqueArray(
    fc.record({ key: tagText(1, 20).filter((k) => !k.toLowerCase().startsWith('aws:')), value: tagText(0, 20) }),
    { selector: (t) => t.key, maxLength: 10 },
  );

  it('round-trips any valid tag set', () => {
    fc.assert(
      fc.property(tagsArb, (tags) => {
        expect(parseTaggingHeader(formatTaggingHeader(tags))).toEqual(tags);
      }),
      { numRuns: RUNS },
    );
  });

  it('garbage is InvalidArgument or InvalidTag, never anything else', () => {
    fc.assert(
      fc.property(
        fragmentString(['&', '=', '%', '%2', '%zz', '%E9', '%C3', '%C3%A9', '+', 'aws:', 'k', 'v', '日']),
        (header) => {
          expectCodeIn(
            outcomeOf(() => parseTaggingHeader(header)),
            ['InvalidArgument', 'InvalidTag'],
          );
        },
      ),
      { numRuns: RUNS },
    );
  });
});
