import { describe, expect, it } from 'vitest';
import { parseCompleteMultipartUpload, parseCreateBucketConfiguration, parseDeleteObjects } from './parse.js';
import { readXml } from './reader.js';
import { codeOf } from '../../../../test/helpers/error-code.js';

const buf = (s: string): Buffer => Buffer.from(s, 'utf8');
const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';

const deleteBody = (objects: string, extra = ''): Buffer => buf(`<Delete ${NS}>${extra}${objects}</Delete>`);
const obj = (key: string, version?: string): string =>
  `<Object><Key>${key}</Key>${version === undefined ? '' : `<VersionId>${version}</VersionId>`}</Object>`;

describe('readXml safety', () => {
  it.each([
    ['DOCTYPE with internal entity', '<!DOCTYPE a [<!ENTITY e "x">]><Delete><Object><Key>&e;</Key></Object></Delete>'],
    [
      'billion laughs',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><Delete><Object><Key>&lol3;</Key></Object></Delete>',
    ],
    [
      'external entity (XXE)',
      '<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Delete><Object><Key>&xxe;</Key></Object></Delete>',
    ],
    ['bare DOCTYPE', '<!DOCTYPE Delete><Delete><Object><Key>a</Key></Object></Delete>'],
    ['lower-case doctype', '<!doctype Delete><Delete><Object><Key>a</Key></Object></Delete>'],
    ['undeclared entity', '<Delete><Object><Key>&nbsp;</Key></Object></Delete>'],
    ['bare ampersand', '<Delete><Object><Key>a & b</Key></Object></Delete>'],
    ['unterminated entity', '<Delete><Object><Key>a &amp b</Key></Object></Delete>'],
    ['char ref to a control character', '<Delete><Object><Key>&#x1;</Key></Object></Delete>'],
    ['char ref to NUL', '<Delete><Object><Key>&#0;</Key></Object></Delete>'],
    ['raw control character', '<Delete><Object><Key>a\u0001b</Key></Object></Delete>'],
    ['unclosed tag', '<Delete><Object><Key>a</Key></Object>'],
    ['mismatched tags', '<Delete><Object><Key>a</Object></Key></Delete>'],
    ['two roots', '<Delete><Object><Key>a</Key></Object></Delete><Delete/>'],
    ['text after root', '<Delete><Object><Key>a</Key></Object></Delete>junk'],
    ['text before root', 'junk<Delete><Object><Key>a</Key></Object></Delete>'],
    ['not XML', 'hello world'],
    ['JSON', '{"Objects":[{"Key":"a"}]}'],
    [
      'prototype-polluting element name',
      '<Delete><__proto__><Key>a</Key></__proto__><Object><Key>a</Key></Object></Delete>',
    ],
  ])('refuses %s with MalformedXML', (_name, body) => {
    expect(codeOf(() => parseDeleteObjects(buf(body)))).toBe('MalformedXML');
  });

  it('refuses invalid UTF-8', () => {
    const bytes = Buffer.concat([
      buf('<Delete><Object><Key>'),
      Buffer.from([0xc3, 0x28]),
      buf('</Key></Object></Delete>'),
    ]);
    expect(codeOf(() => parseDeleteObjects(bytes))).toBe('MalformedXML');
  });

  it('decodes predefined entities, character references and CDATA in document order', () => {
    const root = readXml('<a>x&lt;&amp;&gt;&quot;&apos;&#13;&#x0A;&#x1F600;<![CDATA[<&amp;>]]>&#65;<!-- c -->z</a>');
    expect(root?.text).toBe('x<&>"\'\r\n😀<&amp;>Az');
  });

  it('accepts a BOM, an XML declaration, comments and namespace prefixes', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      buf(
        `<?xml version="1.0" encoding="UTF-8"?>\n<!-- hi --><s3:Delete xmlns:s3="x"><s3:Object><s3:Key>k</s3:Key></s3:Object></s3:Delete>`,
      ),
    ]);
    expect(parseDeleteObjects(body).objects).toEqual([{ key: 'k' }]);
  });

  it('returns undefined for empty and whitespace bodies', () => {
    expect(readXml(Buffer.alloc(0))).toBeUndefined();
    expect(readXml(buf(' \n\t '))).toBeUndefined();
  });
});

describe('parseCreateBucketConfiguration', () => {
  it('reads LocationConstraint', () => {
    const body = buf(
      `<CreateBucketConfiguration ${NS}><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>`,
    );
    expect(parseCreateBucketConfiguration(body)).toEqual({ locationConstraint: 'eu-west-1' });
  });
  it('treats an empty body, empty element and empty constraint as no constraint', () => {
    expect(parseCreateBucketConfiguration(Buffer.alloc(0))).toEqual({});
    expect(parseCreateBucketConfiguration(buf('<CreateBucketConfiguration/>'))).toEqual({});
    expect(
      parseCreateBucketConfiguration(
        buf('<CreateBucketConfiguration><LocationConstraint/></CreateBucketConfiguration>'),
      ),
    ).toEqual({});
  });
  it('ignores elements it does not know (newer SDK fields)', () => {
    const body = buf(
      '<CreateBucketConfiguration><LocationConstraint>x</LocationConstraint><Tags><Tag/></Tags></CreateBucketConfiguration>',
    );
    expect(parseCreateBucketConfiguration(body)).toEqual({ locationConstraint: 'x' });
  });
  it.each([
    ['wrong root', '<CreateBucket><LocationConstraint>x</LocationConstraint></CreateBucket>'],
    [
      'duplicate constraint',
      '<CreateBucketConfiguration><LocationConstraint>a</LocationConstraint><LocationConstraint>b</LocationConstraint></CreateBucketConfiguration>',
    ],
    [
      'nested markup in constraint',
      '<CreateBucketConfiguration><LocationConstraint><a/></LocationConstraint></CreateBucketConfiguration>',
    ],
    ['text in the container', '<CreateBucketConfiguration>eu-west-1</CreateBucketConfiguration>'],
    ['garbage', 'eu-west-1'],
  ])('refuses %s', (_name, body) => {
    expect(codeOf(() => parseCreateBucketConfiguration(buf(body)))).toBe('MalformedXML');
  });
});

describe('parseDeleteObjects', () => {
  it('reads keys exactly (whitespace, entities, unicode) and version ids', () => {
    const parsed = parseDeleteObjects(
      deleteBody(obj(' a &amp; b ') + obj('日本/😀', 'v1') + obj('x&#13;&#10;y'), '<Quiet>true</Quiet>'),
    );
    expect(parsed).toEqual({
      quiet: true,
      objects: [{ key: ' a & b ' }, { key: '日本/😀', versionId: 'v1' }, { key: 'x\r\ny' }],
    });
  });
  it('defaults Quiet to false and accepts it in any case', () => {
    expect(parseDeleteObjects(deleteBody(obj('a'))).quiet).toBe(false);
    expect(parseDeleteObjects(deleteBody(obj('a'), '<Quiet>FALSE</Quiet>')).quiet).toBe(false);
    expect(parseDeleteObjects(deleteBody(obj('a'), '<Quiet> True </Quiet>')).quiet).toBe(true);
  });
  it('keeps an empty key for the caller to report per key', () => {
    expect(parseDeleteObjects(deleteBody('<Object><Key></Key></Object>')).objects).toEqual([{ key: '' }]);
  });
  it('accepts exactly 1000 objects', () => {
    const body = deleteBody(Array.from({ length: 1000 }, (_, i) => obj(`k${i}`)).join(''));
    expect(parseDeleteObjects(body).objects).toHaveLength(1000);
  });
  it.each([
    ['1001 objects', deleteBody(Array.from({ length: 1001 }, (_, i) => obj(`k${i}`)).join(''))],
    ['no objects', deleteBody('')],
    ['only Quiet', deleteBody('', '<Quiet>true</Quiet>')],
    ['empty body', Buffer.alloc(0)],
    ['missing Key', deleteBody('<Object><VersionId>v</VersionId></Object>')],
    ['two Keys in one Object', deleteBody('<Object><Key>a</Key><Key>b</Key></Object>')],
    ['Key with child elements', deleteBody('<Object><Key><b>a</b></Key></Object>')],
    ['Quiet not a boolean', deleteBody(obj('a'), '<Quiet>yes</Quiet>')],
    ['two Quiet elements', deleteBody(obj('a'), '<Quiet>true</Quiet><Quiet>true</Quiet>')],
    ['wrong root', buf(`<DeleteObjects>${obj('a')}</DeleteObjects>`)],
    [
      'root of another operation',
      buf('<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>'),
    ],
  ])('refuses %s with MalformedXML', (_name, body) => {
    expect(codeOf(() => parseDeleteObjects(body))).toBe('MalformedXML');
  });
});

describe('parseCompleteMultipartUpload', () => {
  const part = (n: string, etag: string, extra = ''): string =>
    `<Part><PartNumber>${n}</PartNumber><ETag>${etag}</ETag>${extra}</Part>`;
  const body = (parts: string): Buffer => buf(`<CompleteMultipartUpload ${NS}>${parts}</CompleteMultipartUpload>`);

  it('reads part numbers, ETags and checksums in document order', () => {
    const parsed = parseCompleteMultipartUpload(
      body(
        part('2', '&quot;abc&quot;', '<ChecksumCRC32>AAAAAA==</ChecksumCRC32><ChecksumSHA256>x=</ChecksumSHA256>') +
          part(
            ' 1 ',
            '"def"',
            '<ChecksumCRC64NVME>rosUhgp5mIg=</ChecksumCRC64NVME><ChecksumCRC32C>c</ChecksumCRC32C><ChecksumSHA1>s</ChecksumSHA1>',
          ),
      ),
    );
    expect(parsed.parts).toEqual([
      { partNumber: 2, etag: '"abc"', checksums: { CRC32: 'AAAAAA==', SHA256: 'x=' } },
      { partNumber: 1, etag: '"def"', checksums: { CRC64NVME: 'rosUhgp5mIg=', CRC32C: 'c', SHA1: 's' } },
    ]);
  });

  it.each([
    ['no parts', body('')],
    ['empty body', Buffer.alloc(0)],
    ['non-numeric PartNumber', body(part('one', 'x'))],
    ['negative PartNumber', body(part('-1', 'x'))],
    ['fractional PartNumber', body(part('1.5', 'x'))],
    ['exponent PartNumber', body(part('1e3', 'x'))],
    ['PartNumber beyond int32', body(part('2147483648', 'x'))],
    ['empty PartNumber', body(part('', 'x'))],
    ['missing PartNumber', body('<Part><ETag>x</ETag></Part>')],
    ['missing ETag', body('<Part><PartNumber>1</PartNumber></Part>')],
    ['duplicate ETag', body('<Part><PartNumber>1</PartNumber><ETag>x</ETag><ETag>y</ETag></Part>')],
    ['wrong root', buf(`<CompleteMultipart>${part('1', 'x')}</CompleteMultipart>`)],
  ])('refuses %s with MalformedXML', (_name, b) => {
    expect(codeOf(() => parseCompleteMultipartUpload(b))).toBe('MalformedXML');
  });
});
