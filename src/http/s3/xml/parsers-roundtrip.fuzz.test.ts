// Properties of the S3 request-body XML parsers on valid input: documents built from generated models parse back
// to the same model. Hostile input is parsers.fuzz.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CorsConfiguration, CorsRule } from '../../../core/cors.js';
import type { ObjectLockConfiguration } from '../../../core/object-lock.js';
import { checkAclBody } from '../handlers/acl-header.js';
import { buildCorsConfiguration, parseCorsConfiguration } from './config-cors.js';
import { buildBucketEncryption, parseBucketEncryption } from './config-encryption.js';
import {
  buildLegalHold,
  buildObjectLockConfiguration,
  buildRetention,
  parseLegalHold,
  parseObjectLockConfiguration,
  parseRetention,
} from './config-object-lock.js';
import { buildTagging, parseTagging } from './config-tagging.js';
import { buildVersioningConfiguration, parseVersioningConfiguration } from './config-versioning.js';
import { escapeXml } from './escape.js';
import { parseCompleteMultipartUpload, parseCreateBucketConfiguration, parseDeleteObjects } from './parse.js';
import { parseRestoreRequest } from './restore.js';
import { buildAccessControlPolicy } from './acl.js';
import { outcomeOf } from '../../../../test/helpers/fuzz.js';

const RUNS = 300;
const NOW = new Date('2024-02-29T12:00:00Z');
const OWNER = 'owner-canonical-id';

/**
 * Text a key, tag or ID may hold and XML 1.0 can carry: no C0 controls but tab/LF/CR, no U+FFFE/FFFF, no lone
 * surrogates.
 */
const xmlText = (maxLength: number, minLength = 0) =>
  fc
    .string({ minLength, maxLength, unit: 'binary' })
    .filter(
      (s) =>
        !/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(s) &&
        Buffer.from(s, 'utf8').toString('utf8') === s,
    );
const tagChar = fc.constantFrom(...'abcXYZ019 _.:/=+-@', 'é', '日', '\u00a0', '\u2028', '٣', 'ß');
const tagText = (min: number, max: number) => fc.string({ minLength: min, maxLength: max, unit: tagChar });
const tagsArb = (max: number) =>
  fc.uniqueArray(
    fc.record({ key: tagText(1, 128).filter((k) => !k.toLowerCase().startsWith('aws:')), value: tagText(0, 256) }),
    { selector: (t) => t.key, maxLength: max },
  );

function roundTrip<T>(
  arb: fc.Arbitrary<T>,
  build: (model: T) => string,
  { parse, expected = (m) => m }: { parse: (body: Buffer) => unknown; expected?: (model: T) => unknown },
): void {
  fc.assert(
    fc.property(arb, (model) => {
      expect(parse(Buffer.from(build(model)))).toEqual(expected(model));
    }),
    { numRuns: RUNS },
  );
}

describe('valid documents parse back to the model they were built from', () => {
  it('Tagging (object and bucket)', () => {
    roundTrip(tagsArb(10), buildTagging, { parse: (b) => parseTagging(b, 'object') });
    roundTrip(tagsArb(50), buildTagging, { parse: (b) => parseTagging(b, 'bucket') });
  });

  it('VersioningConfiguration', () => {
    roundTrip(
      fc.constantFrom('Enabled', 'Suspended') as fc.Arbitrary<'Enabled' | 'Suspended'>,
      buildVersioningConfiguration,
      { parse: parseVersioningConfiguration, expected: (status) => ({ status }) },
    );
  });

  it('CORSConfiguration', () => {
    // At most one '*' (S3's rule), put between two code points.
    const oneStar = (max: number) =>
      xmlText(max)
        .map((s) => Array.from(s.replace(/\*/g, '')))
        .chain((cps) =>
          fc.oneof(
            fc.constant(cps.join('')),
            fc.nat({ max: cps.length }).map((i) => [...cps.slice(0, i), '*', ...cps.slice(i)].join('')),
          ),
        );
    const ruleArb = fc.record(
      {
        allowedOrigins: fc.array(oneStar(20), { minLength: 1, maxLength: 3 }),
        allowedMethods: fc.array(fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'HEAD'), {
          minLength: 1,
          maxLength: 5,
        }),
        allowedHeaders: fc.array(oneStar(20), { maxLength: 3 }),
        exposeHeaders: fc.array(xmlText(20), { maxLength: 3 }),
        id: fc.option(xmlText(255, 1), { nil: undefined }),
        maxAgeSeconds: fc.option(fc.integer({ min: 0, max: 2_147_483_647 }), { nil: undefined }),
      },
      { requiredKeys: ['allowedOrigins', 'allowedMethods', 'allowedHeaders', 'exposeHeaders'] },
    ) as fc.Arbitrary<CorsRule>;
    const configArb = fc
      .uniqueArray(ruleArb, { minLength: 1, maxLength: 4, selector: (r) => r.id ?? Symbol('no id') })
      .map((rules): CorsConfiguration => ({ rules }));
    roundTrip(configArb, buildCorsConfiguration, { parse: parseCorsConfiguration });
  });

  it('ServerSideEncryptionConfiguration', () => {
    const arb = fc.record(
      { sseAlgorithm: fc.constant('AES256' as const), bucketKeyEnabled: fc.option(fc.boolean(), { nil: undefined }) },
      { requiredKeys: ['sseAlgorithm'] },
    );
    roundTrip(arb, buildBucketEncryption, { parse: parseBucketEncryption });
  });

  it('ObjectLockConfiguration, Retention and LegalHold', () => {
    const mode = fc.constantFrom('GOVERNANCE', 'COMPLIANCE') as fc.Arbitrary<'GOVERNANCE' | 'COMPLIANCE'>;
    const lockArb: fc.Arbitrary<ObjectLockConfiguration> = fc
      .option(
        fc.oneof(
          fc.record({ mode, days: fc.integer({ min: 1, max: 36_500 }) }),
          fc.record({ mode, years: fc.integer({ min: 1, max: 100 }) }),
        ),
        { nil: undefined },
      )
      .map((defaultRetention) =>
        defaultRetention === undefined ? { enabled: true } : { enabled: true, defaultRetention },
      );
    roundTrip(lockArb, buildObjectLockConfiguration, { parse: parseObjectLockConfiguration });
    const until = fc
      .integer({ min: NOW.getTime() + 1000, max: Date.parse('2999-12-31') })
      .map((ms) => new Date(ms).toISOString());
    roundTrip(fc.record({ mode, retainUntilDate: until }), buildRetention, { parse: (b) => parseRetention(b, NOW) });
    roundTrip(fc.constantFrom('ON', 'OFF') as fc.Arbitrary<'ON' | 'OFF'>, buildLegalHold, { parse: parseLegalHold });
  });

  it('Delete: keys come back exactly as sent, whitespace, CR and any Unicode included', () => {
    const arb = fc.record({
      quiet: fc.option(fc.boolean(), { nil: undefined }),
      objects: fc.array(
        fc.record({
          key: xmlText(40),
          versionId: fc.option(fc.stringMatching(/^[A-Za-z0-9._-]{1,32}$/), { nil: undefined }),
        }),
        { minLength: 1, maxLength: 20 },
      ),
    });
    roundTrip(
      arb,
      ({ quiet, objects }) =>
        `<Delete>${quiet === undefined ? '' : `<Quiet>${quiet}</Quiet>`}${objects
          .map(
            (o) =>
              `<Object><Key>${escapeXml(o.key)}</Key>${o.versionId === undefined ? '' : `<VersionId>${o.versionId}</VersionId>`}</Object>`,
          )
          .join('')}</Delete>`,
      {
        parse: parseDeleteObjects,
        expected: ({ quiet, objects }) => ({
          quiet: quiet ?? false,
          objects: objects.map((o) => (o.versionId === undefined ? { key: o.key } : o)),
        }),
      },
    );
  });

  it('CompleteMultipartUpload: part numbers, ETags and checksums', () => {
    const partArb = fc.record({
      partNumber: fc.integer({ min: 1, max: 10_000 }),
      etag: xmlText(40)
        .map((s) => s.trim())
        .filter((s) => s !== '' && s === s.trim()),
      crc32: fc.option(fc.stringMatching(/^[A-Za-z0-9+/]{6}==$/), { nil: undefined }),
    });
    roundTrip(
      fc.array(partArb, { minLength: 1, maxLength: 20 }),
      (parts) =>
        `<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts
          .map(
            (p) =>
              `<Part><PartNumber> ${p.partNumber} </PartNumber><ETag>${escapeXml(p.etag)}</ETag>${p.crc32 ? `<ChecksumCRC32>${p.crc32}</ChecksumCRC32>` : ''}</Part>`,
          )
          .join('')}</CompleteMultipartUpload>`,
      {
        parse: parseCompleteMultipartUpload,
        expected: (parts) => ({
          parts: parts.map((p) => ({
            partNumber: p.partNumber,
            etag: p.etag,
            checksums: p.crc32 ? { CRC32: p.crc32 } : {},
          })),
        }),
      },
    );
  });

  it('CreateBucketConfiguration and RestoreRequest', () => {
    roundTrip(
      fc.stringMatching(/^[a-z]{2}-[a-z]{4,9}-\d$/),
      (region) =>
        `<CreateBucketConfiguration><LocationConstraint>${region}</LocationConstraint></CreateBucketConfiguration>`,
      { parse: parseCreateBucketConfiguration, expected: (region) => ({ locationConstraint: region }) },
    );
    roundTrip(
      fc.integer({ min: 1, max: 36_500 }),
      (days) => `<RestoreRequest><Days>${days}</Days><Tier>Bulk</Tier></RestoreRequest>`,
      { parse: parseRestoreRequest, expected: (days) => ({ days }) },
    );
  });

  it('AccessControlPolicy: the owner-only ACL Store answers is accepted back, any other grant is refused', () => {
    expect(() =>
      checkAclBody(Buffer.from(buildAccessControlPolicy({ id: OWNER, displayName: 'me' })), OWNER, false),
    ).not.toThrow();
    fc.assert(
      fc.property(
        xmlText(30).filter((id) => id !== OWNER),
        fc.constantFrom('FULL_CONTROL', 'READ', 'WRITE'),
        (grantee, permission) => {
          const doc = buildAccessControlPolicy({ id: OWNER, displayName: 'me' }).replace(
            '</AccessControlList>',
            `<Grant><Grantee><ID>${escapeXml(grantee)}</ID></Grantee><Permission>${permission}</Permission></Grant></AccessControlList>`,
          );
          const outcome = outcomeOf(() => checkAclBody(Buffer.from(doc), OWNER, false));
          expect(outcome.ok ? 'accepted' : outcome.error.code).toBe('AccessControlListNotSupported');
        },
      ),
      { numRuns: 100 },
    );
  });
});
