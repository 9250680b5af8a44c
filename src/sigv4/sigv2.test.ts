import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.js';
import { signatureV2, stringToSignV2, verifyV2Header, verifyV2Query } from './sigv2.js';
import { queryParams } from './auth-params.js';
import type { SignedRequest } from './types.js';
import { verifyRequest } from './verify.js';

// AWS's documented example (RESTAuthentication.html, "Object GET").
const AKID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const DATE = 'Tue, 27 Mar 2007 19:36:42 +0000';
const NOW = new Date('2007-03-27T19:40:00Z');
const opts = { lookup: (id: string) => (id === AKID ? SECRET : undefined), now: NOW };

function request(over: Partial<SignedRequest> & { headers?: SignedRequest['headers'] } = {}): SignedRequest {
  return {
    method: 'GET',
    rawPath: '/awsexamplebucket1/photos/puppy.jpg',
    rawQuery: '',
    ...over,
    headers: { date: DATE, ...over.headers },
  };
}

function signed(req: SignedRequest, date = DATE): SignedRequest {
  return {
    ...req,
    headers: { ...req.headers, authorization: `AWS ${AKID}:${signatureV2(SECRET, stringToSignV2(req, date))}` },
  };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  return 'ok';
}

describe('SigV2 string to sign and signature', () => {
  it("matches AWS's documented example", () => {
    const toSign = stringToSignV2(request(), DATE);
    expect(toSign).toBe(`GET\n\n\n${DATE}\n/awsexamplebucket1/photos/puppy.jpg`);
    expect(signatureV2(SECRET, toSign)).toBe('qgk2+6Sv9/oM7G3qLEjTH1a1l1g=');
  });

  it('signs Content-MD5, Content-Type, the x-amz-* headers sorted and joined, and only the signed sub-resources, sorted and decoded', () => {
    const req = request({
      method: 'PUT',
      rawPath: '/b/k',
      rawQuery: 'uploadId=a%2Bb&prefix=ignored&partNumber=2&max-keys=5',
      headers: {
        'content-md5': ' abc== ',
        'content-type': 'text/plain',
        'x-amz-meta-b': ['2', ' 3'],
        'x-amz-meta-a': 'x\r\n  y',
        'user-agent': 'u',
      },
    });
    expect(stringToSignV2(req, DATE)).toBe(
      `PUT\nabc==\ntext/plain\n${DATE}\nx-amz-meta-a:x y\nx-amz-meta-b:2,3\n/b/k?partNumber=2&uploadId=a+b`,
    );
    expect(stringToSignV2(request({ rawPath: '/b', rawQuery: 'acl' }), DATE)).toBe(`GET\n\n\n${DATE}\n/b?acl`);
  });

  it("starts the resource with the Host's bucket on a virtual-hosted–style request (AWS's example is one)", () => {
    // GET /photos/puppy.jpg with Host: awsexamplebucket1.us-west-1.s3.amazonaws.com
    const hosted = request({ rawPath: '/photos/puppy.jpg', hostBucket: 'awsexamplebucket1' });
    expect(signatureV2(SECRET, stringToSignV2(hosted, DATE))).toBe('qgk2+6Sv9/oM7G3qLEjTH1a1l1g=');
    // A bucket operation is the bucket followed by '/', as botocore signs it.
    expect(stringToSignV2(request({ rawPath: '/', rawQuery: 'acl&prefix=x', hostBucket: 'my.bucket' }), DATE)).toBe(
      `GET\n\n\n${DATE}\n/my.bucket/?acl`,
    );
    expect(verifyV2Header(signed(hosted), `AWS ${AKID}:qgk2+6Sv9/oM7G3qLEjTH1a1l1g=`, opts).accessKeyId).toBe(AKID);
    expect(
      codeOf(() =>
        verifyV2Header({ ...hosted, hostBucket: 'other' }, `AWS ${AKID}:qgk2+6Sv9/oM7G3qLEjTH1a1l1g=`, opts),
      ),
    ).toBe('SignatureDoesNotMatch');
  });
});

describe('SigV2 header authentication', () => {
  it('verifies a signed request, with the Date header or an x-amz-date (which empties the Date line)', () => {
    expect(verifyV2Header(signed(request()), String(signed(request()).headers['authorization']), opts)).toMatchObject({
      accessKeyId: AKID,
      via: 'header',
      scheme: 'sigv2',
      payload: { kind: 'unsigned' },
    });
    const withAmzDate = request({ headers: { date: undefined, 'x-amz-date': DATE } });
    const req = signed(withAmzDate, '');
    expect(verifyRequest(req, { ...opts, region: { name: 'us-east-1', strict: true }, sigv2: true })?.scheme).toBe(
      'sigv2',
    );
    const basic = signed(request({ headers: { date: undefined, 'x-amz-date': '20070327T193642Z' } }), '');
    expect(
      verifyRequest(basic, { ...opts, region: { name: 'us-east-1', strict: true }, sigv2: true })?.accessKeyId,
    ).toBe(AKID);
  });

  it('refuses a wrong signature with the string to sign, an unknown key, a skewed or missing date, a malformed header', () => {
    const req = signed(request());
    const tampered = { ...req, rawPath: '/awsexamplebucket1/photos/kitten.jpg' };
    let details: Record<string, string> = {};
    try {
      verifyV2Header(tampered, String(req.headers['authorization']), opts);
    } catch (err) {
      details = (err as AppError).details as Record<string, string>;
      expect((err as AppError).code).toBe('SignatureDoesNotMatch');
    }
    expect(details['StringToSign']).toBe(`GET\n\n\n${DATE}\n/awsexamplebucket1/photos/kitten.jpg`);
    expect(codeOf(() => verifyV2Header(req, `AWS AKIDUNKNOWN:${'a'.repeat(28)}`, opts))).toBe('InvalidAccessKeyId');
    expect(
      codeOf(() =>
        verifyV2Header(req, String(req.headers['authorization']), { ...opts, now: new Date('2007-03-27T20:00:00Z') }),
      ),
    ).toBe('RequestTimeTooSkewed');
    const undated = request({ headers: { date: undefined } });
    expect(codeOf(() => verifyV2Header(undated, `AWS ${AKID}:x`, opts))).toBe('AccessDenied');
    expect(codeOf(() => verifyV2Header(req, 'AWS no-colon', opts))).toBe('AuthorizationHeaderMalformed');
  });
});

describe('SigV2 query authentication', () => {
  const expires = String(Math.floor(NOW.getTime() / 1000) + 60);
  function presigned(rawPath = '/b/k', extra = ''): SignedRequest {
    const req: SignedRequest = { method: 'GET', rawPath, rawQuery: extra, headers: {} };
    const signature = signatureV2(SECRET, stringToSignV2(req, expires));
    const auth = `AWSAccessKeyId=${AKID}&Expires=${expires}&Signature=${encodeURIComponent(signature)}`;
    return { ...req, rawQuery: extra === '' ? auth : `${extra}&${auth}` };
  }

  it('verifies a presigned URL until it expires, sub-resources included', () => {
    const req = presigned('/b/k', 'response-content-type=text%2Fhtml');
    expect(verifyV2Query(req, queryParams(req.rawQuery), opts)).toMatchObject({
      accessKeyId: AKID,
      via: 'presigned',
      scheme: 'sigv2',
    });
    const later = { ...opts, now: new Date(Number(expires) * 1000 + 1000) };
    expect(codeOf(() => verifyV2Query(req, queryParams(req.rawQuery), later))).toBe('AccessDenied');
  });

  it('takes a signature whose + was left unencoded (decoded as a space)', () => {
    const req = presigned();
    const raw = req.rawQuery.replace(/Signature=.*$/, (s) =>
      decodeURIComponent(s.slice('Signature='.length)).replace(/^/, 'Signature='),
    );
    expect(codeOf(() => verifyV2Query({ ...req, rawQuery: raw }, queryParams(raw), opts))).toBe('ok');
  });

  it('refuses a missing parameter, a bad Expires, a changed path and an unknown key', () => {
    const req = presigned();
    const params = queryParams(req.rawQuery);
    expect(codeOf(() => verifyV2Query({ ...req, rawPath: '/b/other' }, params, opts))).toBe('SignatureDoesNotMatch');
    const without = new Map(params);
    without.delete('Expires');
    expect(codeOf(() => verifyV2Query(req, without, opts))).toBe('AccessDenied');
    expect(codeOf(() => verifyV2Query(req, new Map([...params, ['Expires', 'soon']]), opts))).toBe('AccessDenied');
    expect(codeOf(() => verifyV2Query(req, new Map([...params, ['AWSAccessKeyId', 'NOPE']]), opts))).toBe(
      'InvalidAccessKeyId',
    );
  });

  it('is refused as an unsupported mechanism when SigV2 is off', () => {
    const req = presigned();
    expect(
      codeOf(() => verifyRequest(req, { ...opts, region: { name: 'us-east-1', strict: true }, sigv2: false })),
    ).toBe('InvalidRequest');
    expect(verifyRequest(req, { ...opts, region: { name: 'us-east-1', strict: true }, sigv2: true })?.scheme).toBe(
      'sigv2',
    );
  });
});
