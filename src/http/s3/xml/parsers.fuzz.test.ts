// Properties of every S3 request-body XML parser on arbitrary input: random bytes, XML-ish text, random element
// trees over the documents' own vocabulary and mutations of valid documents all end in a value or an AppError with
// one of the parser's documented codes (never a TypeError, never a 500). Valid documents built from generated models
// are parsers-roundtrip.fuzz.test.ts; the lifecycle parser has its own file (config-lifecycle.fuzz.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../core/errors.js';
import type { ObjectLockConfiguration } from '../../../core/object-lock.js';
import { checkAclBody } from '../handlers/acl-header.js';
import { parseCorsConfiguration } from './config-cors.js';
import { parseBucketEncryption } from './config-encryption.js';
import { parseLegalHold, parseObjectLockConfiguration, parseRetention } from './config-object-lock.js';
import { parseTagging } from './config-tagging.js';
import { parseVersioningConfiguration } from './config-versioning.js';
import { parseCompleteMultipartUpload, parseCreateBucketConfiguration, parseDeleteObjects } from './parse.js';
import { readXml } from './reader.js';
import { parseRestoreRequest } from './restore.js';
import { expectCodeIn, fragmentString, mutate, mutationArb, outcomeOf } from '../../../../test/helpers/fuzz.js';

const RUNS = 300;
const NOW = new Date('2024-02-29T12:00:00Z');
const OWNER = 'owner-canonical-id';

interface Parser {
  name: string;
  root: string;
  parse: (body: Buffer) => unknown;
  codes: readonly ErrorCode[];
}

const CONFIG = ['MissingRequestBodyError', 'MalformedXML'] as const;
const PARSERS: Parser[] = [
  {
    name: 'CreateBucketConfiguration',
    root: 'CreateBucketConfiguration',
    parse: parseCreateBucketConfiguration,
    codes: ['MalformedXML'],
  },
  { name: 'DeleteObjects', root: 'Delete', parse: parseDeleteObjects, codes: ['MalformedXML'] },
  {
    name: 'CompleteMultipartUpload',
    root: 'CompleteMultipartUpload',
    parse: parseCompleteMultipartUpload,
    codes: ['MalformedXML'],
  },
  {
    name: 'object Tagging',
    root: 'Tagging',
    parse: (b) => parseTagging(b, 'object'),
    codes: [...CONFIG, 'InvalidTag'],
  },
  {
    name: 'bucket Tagging',
    root: 'Tagging',
    parse: (b) => parseTagging(b, 'bucket'),
    codes: [...CONFIG, 'InvalidTag'],
  },
  {
    name: 'Versioning',
    root: 'VersioningConfiguration',
    parse: parseVersioningConfiguration,
    codes: [...CONFIG, 'NotImplemented'],
  },
  {
    name: 'CORS',
    root: 'CORSConfiguration',
    parse: parseCorsConfiguration,
    codes: [...CONFIG, 'InvalidRequest', 'InvalidArgument'],
  },
  {
    name: 'Encryption',
    root: 'ServerSideEncryptionConfiguration',
    parse: parseBucketEncryption,
    codes: [...CONFIG, 'NotImplemented', 'InvalidArgument'],
  },
  {
    name: 'ObjectLockConfiguration',
    root: 'ObjectLockConfiguration',
    parse: parseObjectLockConfiguration,
    codes: [...CONFIG, 'InvalidArgument'],
  },
  { name: 'Retention', root: 'Retention', parse: (b) => parseRetention(b, NOW), codes: [...CONFIG, 'InvalidArgument'] },
  { name: 'LegalHold', root: 'LegalHold', parse: parseLegalHold, codes: CONFIG },
  {
    name: 'RestoreRequest',
    root: 'RestoreRequest',
    parse: parseRestoreRequest,
    codes: ['MalformedXML', 'InvalidArgument'],
  },
  {
    name: 'AccessControlPolicy',
    root: 'AccessControlPolicy',
    parse: (b) => checkAclBody(b, OWNER, false),
    codes: ['MalformedXML', 'AccessControlListNotSupported', 'MissingSecurityHeader'],
  },
];

// Every element name of the documents above, so random trees reach past the root check into the schemas.
const NAMES = [
  'CreateBucketConfiguration',
  'LocationConstraint',
  'Delete',
  'Quiet',
  'Object',
  'Key',
  'VersionId',
  'CompleteMultipartUpload',
  'Part',
  'PartNumber',
  'ETag',
  'ChecksumCRC32',
  'ChecksumSHA256',
  'Tagging',
  'TagSet',
  'Tag',
  'Value',
  'VersioningConfiguration',
  'Status',
  'MfaDelete',
  'CORSConfiguration',
  'CORSRule',
  'ID',
  'AllowedOrigin',
  'AllowedMethod',
  'AllowedHeader',
  'ExposeHeader',
  'MaxAgeSeconds',
  'ServerSideEncryptionConfiguration',
  'Rule',
  'ApplyServerSideEncryptionByDefault',
  'SSEAlgorithm',
  'KMSMasterKeyID',
  'BucketKeyEnabled',
  'ObjectLockConfiguration',
  'ObjectLockEnabled',
  'DefaultRetention',
  'Mode',
  'Days',
  'Years',
  'Retention',
  'RetainUntilDate',
  'LegalHold',
  'RestoreRequest',
  'Tier',
  'AccessControlPolicy',
  'AccessControlList',
  'Grant',
  'Grantee',
  'Permission',
  'Owner',
  '__proto__',
  'constructor',
  'toString',
  's3:Key',
  'hasOwnProperty',
];
const TEXTS = [
  '',
  ' ',
  'true',
  'false',
  '1',
  '0',
  '-1',
  '+7',
  '2147483648',
  '99999999999999999999',
  '1e3',
  '0x10',
  'NaN',
  'Enabled',
  'Suspended',
  'Disabled',
  'ON',
  'OFF',
  'GOVERNANCE',
  'COMPLIANCE',
  'AES256',
  'aws:kms',
  'GET',
  'PUT',
  'PATCH',
  '*',
  '**',
  'FULL_CONTROL',
  OWNER,
  '2030-01-01T00:00:00Z',
  '2000-01-01T00:00:00Z',
  '2030-02-30T00:00:00Z',
  '"etag"',
  'eu-west-1',
  'aws:x',
  'k',
  '&amp;',
  '&#x41;',
  '&lt;',
  '&bogus;',
  '&#0;',
  '&#x110000;',
  '<![CDATA[x]]>',
  '<!-- c -->',
  'é',
  '\t',
  '\r\n',
  'a'.repeat(300),
];
const FRAGMENTS = [
  '<',
  '>',
  '</',
  '/>',
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<!--',
  '-->',
  '<![CDATA[',
  ']]>',
  '<!DOCTYPE a [<!ENTITY x "y">]>',
  '&',
  ';',
  '&amp;',
  '&#',
  '"',
  "'",
  '=',
  ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"',
  ' a="1"',
  ':',
  '\uFEFF',
  '\u0000',
  '\uFFFE',
  ...NAMES.slice(0, 20).map((n) => `<${n}>`),
  ...NAMES.slice(0, 20).map((n) => `</${n}>`),
  ...TEXTS.slice(0, 12),
];

interface Tree {
  name: string;
  children: Array<Tree | string>;
}

/** Random element trees over the vocabulary: valid XML, arbitrary schema. */
const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree; node: Tree | string }>((tie) => ({
  tree: fc.record({ name: fc.constantFrom(...NAMES), children: fc.array(tie('node'), { maxLength: 4 }) }),
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constantFrom(...TEXTS), tie('tree')),
})).tree;

function render(tree: Tree): string {
  return `<${tree.name}>${tree.children.map((c) => (typeof c === 'string' ? c : render(c))).join('')}</${tree.name}>`;
}

function rooted(root: string): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof(treeArb, fc.constantFrom(...TEXTS)), { maxLength: 6 })
    .map((children) => render({ name: root, children }));
}

function expectParserOutcome(parser: Parser, body: Buffer): void {
  expectCodeIn(
    outcomeOf(() => parser.parse(body)),
    parser.codes,
  );
}

describe.each(PARSERS)('$name parser on hostile input', (parser) => {
  it('random bytes and XML-ish text give a value or one of its AppError codes', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
          fragmentString(FRAGMENTS, 40).map((s) => Buffer.from(s)),
        ),
        (body) => {
          expectParserOutcome(parser, body);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('random element trees under its root give a value or one of its AppError codes', () => {
    fc.assert(
      fc.property(rooted(parser.root), fc.array(mutationArb, { maxLength: 2 }), (doc, edits) => {
        expectParserOutcome(parser, mutate(Buffer.from(doc), edits));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('readXml', () => {
  it('never lets a DOCTYPE or an entity declaration through, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        fragmentString(FRAGMENTS, 10),
        fragmentString(FRAGMENTS, 10),
        fc.constantFrom('<!DOCTYPE a>', '<!ENTITY b "c">', '<!ELEMENT a ANY>'),
        (before, after, decl) => {
          const outcome = outcomeOf(() => readXml(`${before}${decl}${after}`));
          // Inside a comment or CDATA section a declaration is only text; anywhere else it is refused.
          if (outcome.ok && outcome.value !== undefined) expect(`${before}${after}`).toMatch(/<!--|<!\[CDATA\[/);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
