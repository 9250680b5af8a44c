import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../../test/helpers/error-code.js';
import { cannedAcl } from '../../../core/acl/acl.js';
import { buildAccessControlPolicy, parseAccessControlPolicy } from './acl.js';
import {
  buildOwnershipControls,
  buildPublicAccessBlock,
  parseOwnershipControls,
  parsePublicAccessBlock,
} from './config-ownership.js';

const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const owner = { id: 'o'.repeat(64), displayName: 'store' };

describe('AccessControlPolicy', () => {
  it('renders the owner as CanonicalUser and groups by URI', () => {
    const xml = buildAccessControlPolicy(owner, cannedAcl('public-read'));
    expect(xml).toContain(
      `<Grantee ${XSI} xsi:type="CanonicalUser"><ID>${owner.id}</ID><DisplayName>store</DisplayName></Grantee><Permission>FULL_CONTROL</Permission>`,
    );
    expect(xml).toContain(
      `<Grantee ${XSI} xsi:type="Group"><URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee><Permission>READ</Permission>`,
    );
    expect(buildAccessControlPolicy(owner)).toContain(
      '<Permission>FULL_CONTROL</Permission></Grant></AccessControlList>',
    );
  });

  it('parses the grants of a body (ID, URI or EmailAddress), refusing a grant without exactly one grantee', () => {
    const body = (grants: string) =>
      Buffer.from(
        `<AccessControlPolicy ${NS}><Owner><ID>x</ID></Owner><AccessControlList>${grants}</AccessControlList></AccessControlPolicy>`,
      );
    const grant = (grantee: string, permission: string) =>
      `<Grant><Grantee ${XSI} xsi:type="T">${grantee}</Grantee><Permission>${permission}</Permission></Grant>`;
    expect(
      parseAccessControlPolicy(
        body(
          grant('<ID> abc </ID>', 'READ') +
            grant('<URI>u</URI>', 'WRITE_ACP') +
            grant('<EmailAddress>e@x</EmailAddress>', 'FULL_CONTROL'),
        ),
      ),
    ).toEqual([
      { grantee: { type: 'id', value: 'abc' }, permission: 'READ' },
      { grantee: { type: 'uri', value: 'u' }, permission: 'WRITE_ACP' },
      { grantee: { type: 'emailAddress', value: 'e@x' }, permission: 'FULL_CONTROL' },
    ]);
    expect(codeOf(() => parseAccessControlPolicy(body(grant('<ID>a</ID>', 'EVERYTHING'))))).toBe('MalformedACLError');
    expect(codeOf(() => parseAccessControlPolicy(body(grant('<ID>a</ID><URI>u</URI>', 'READ'))))).toBe(
      'MalformedACLError',
    );
    expect(codeOf(() => parseAccessControlPolicy(Buffer.from('<Other/>')))).toBe('MalformedXML');
  });
});

describe('OwnershipControls and PublicAccessBlockConfiguration', () => {
  it('round-trip, and refuse what S3 refuses', () => {
    expect(parseOwnershipControls(Buffer.from(buildOwnershipControls('BucketOwnerPreferred')))).toBe(
      'BucketOwnerPreferred',
    );
    expect(
      codeOf(() =>
        parseOwnershipControls(
          Buffer.from(
            `<OwnershipControls ${NS}><Rule><ObjectOwnership>Mine</ObjectOwnership></Rule></OwnershipControls>`,
          ),
        ),
      ),
    ).toBe('MalformedXML');
    expect(codeOf(() => parseOwnershipControls(Buffer.from(`<OwnershipControls ${NS}></OwnershipControls>`)))).toBe(
      'MalformedXML',
    );
    const block = {
      blockPublicAcls: true,
      ignorePublicAcls: false,
      blockPublicPolicy: true,
      restrictPublicBuckets: false,
    };
    expect(parsePublicAccessBlock(Buffer.from(buildPublicAccessBlock(block)))).toEqual(block);
    expect(
      parsePublicAccessBlock(
        Buffer.from(
          `<PublicAccessBlockConfiguration ${NS}><IgnorePublicAcls>TRUE</IgnorePublicAcls></PublicAccessBlockConfiguration>`,
        ),
      ),
    ).toEqual({
      blockPublicAcls: false,
      ignorePublicAcls: true,
      blockPublicPolicy: false,
      restrictPublicBuckets: false,
    });
    expect(
      codeOf(() =>
        parsePublicAccessBlock(
          Buffer.from(
            `<PublicAccessBlockConfiguration ${NS}><BlockPublicAcls>yes</BlockPublicAcls></PublicAccessBlockConfiguration>`,
          ),
        ),
      ),
    ).toBe('MalformedXML');
  });
});
