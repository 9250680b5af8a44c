import { describe, expect, it } from 'vitest';
import { presignUrl, signRequest } from './sign.js';
import { chunkContextFromHeaders, encodeAwsChunked } from './chunked-encoder.js';

const creds = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  region: 'us-east-1',
};
const NOW = new Date('2013-05-24T00:00:00Z');
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

function signatureOf(headers: Record<string, string>): string {
  return /Signature=([0-9a-f]{64})$/.exec(headers['authorization'] ?? '')?.[1] ?? '';
}

describe('signRequest reproduces the S3 documentation examples', () => {
  it('GET object with range', () => {
    const headers = signRequest({
      ...creds,
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: { Range: 'bytes=0-9' },
      payloadHash: EMPTY,
      now: NOW,
    });
    expect(headers['authorization']).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(headers).toMatchObject({
      host: 'examplebucket.s3.amazonaws.com',
      range: 'bytes=0-9',
      'x-amz-date': '20130524T000000Z',
    });
  });

  it('PUT object with a $ in the key and a Date header', () => {
    const headers = signRequest({
      ...creds,
      method: 'PUT',
      url: new URL('https://examplebucket.s3.amazonaws.com/test$file.text'),
      headers: { Date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
      payloadHash: '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
      now: NOW,
    });
    expect(signatureOf(headers)).toBe('98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });

  it('chunked upload: seed signature and every chunk signature', () => {
    const headers = signRequest({
      ...creds,
      method: 'PUT',
      url: new URL('https://s3.amazonaws.com/examplebucket/chunkObject.txt'),
      headers: {
        'Content-Encoding': 'aws-chunked',
        'Content-Length': '66824',
        'x-amz-decoded-content-length': '66560',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
      },
      payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      now: NOW,
    });
    expect(signatureOf(headers)).toBe('4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9');
    const body = encodeAwsChunked({
      data: Buffer.alloc(66560, 'a'),
      chunkSize: 65536,
      context: chunkContextFromHeaders(headers, creds.secretAccessKey),
    });
    expect(body.length).toBe(66824);
    const text = body.toString('latin1');
    expect(
      text.startsWith('10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n'),
    ).toBe(true);
    expect(text).toContain(
      '\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n',
    );
    expect(
      text.endsWith('\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n'),
    ).toBe(true);
  });

  it('chunked upload with a trailer: seed, chunk and trailer signatures', () => {
    const headers = signRequest({
      ...creds,
      method: 'PUT',
      url: new URL('https://s3.amazonaws.com/examplebucket/chunkObject.txt'),
      headers: {
        'Content-Encoding': 'aws-chunked',
        'x-amz-decoded-content-length': '66560',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        'x-amz-trailer': 'x-amz-checksum-crc32c',
      },
      payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
      now: NOW,
    });
    expect(signatureOf(headers)).toBe('106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e');
    const text = encodeAwsChunked({
      data: Buffer.alloc(66560, 'a'),
      chunkSize: 65536,
      context: chunkContextFromHeaders(headers, creds.secretAccessKey),
      trailers: { 'x-amz-checksum-crc32c': 'sOO8/Q==' },
    }).toString('latin1');
    expect(text).toContain(
      '10000;chunk-signature=b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2\r\n',
    );
    expect(text).toContain('400;chunk-signature=1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7\r\n');
    expect(
      text.endsWith(
        '0;chunk-signature=2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992\r\n' +
          'x-amz-checksum-crc32c:sOO8/Q==\r\n' +
          'x-amz-trailer-signature:d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435\r\n\r\n',
      ),
    ).toBe(true);
  });
});

describe('signRequest', () => {
  it('lower-cases names, keeps Host as given, leaves user-agent unsigned and replaces an old authorization', () => {
    const headers = signRequest({
      ...creds,
      method: 'GET',
      url: new URL('http://127.0.0.1:9000/b/k'),
      headers: { 'User-Agent': 'test', Authorization: 'old', HOST: 'proxy.example:8443' },
      now: NOW,
    });
    expect(headers['host']).toBe('proxy.example:8443');
    expect(headers['user-agent']).toBe('test');
    expect(headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(headers['authorization']).toContain('SignedHeaders=host;x-amz-content-sha256;x-amz-date,');
  });

  it('uses the current time by default', () => {
    const before = Date.now();
    const date = signRequest({ ...creds, method: 'GET', url: new URL('http://h/b') })['x-amz-date'] ?? '';
    const t = Date.parse(
      `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 11)}:${date.slice(11, 13)}:${date.slice(13)}`,
    );
    expect(Math.abs(t - before)).toBeLessThan(5000);
  });
});

describe('presignUrl', () => {
  it('reproduces the S3 documentation example URL', () => {
    const url = presignUrl({
      ...creds,
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      expiresSeconds: 86400,
      now: NOW,
    });
    expect(url.toString()).toBe(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });

  it('refuses expiries outside 1..604800 seconds', () => {
    for (const expiresSeconds of [0, -1, 604801, 1.5, Number.NaN]) {
      expect(() => presignUrl({ ...creds, method: 'GET', url: new URL('http://h/b/k'), expiresSeconds })).toThrow(
        RangeError,
      );
    }
  });
});
