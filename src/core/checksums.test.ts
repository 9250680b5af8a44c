import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  type CrcAlgorithm,
  checksumDigestLength,
  checksumHeader,
  combineCrc,
  compositeChecksum,
  computeChecksum,
  crc32Fallback,
  createChecksummer,
  isValidChecksumValue,
  parseChecksumAlgorithm,
} from './checksums.js';
import { codeOf } from '../../test/helpers/error-code.js';

const b64 = (alg: ChecksumAlgorithm, data: string | Uint8Array): string =>
  computeChecksum(alg, typeof data === 'string' ? Buffer.from(data) : data).toString('base64');

describe('parseChecksumAlgorithm', () => {
  it('accepts every algorithm in any case', () => {
    for (const alg of CHECKSUM_ALGORITHMS) {
      expect(parseChecksumAlgorithm(alg.toLowerCase())).toBe(alg);
      expect(parseChecksumAlgorithm(alg)).toBe(alg);
    }
    expect(parseChecksumAlgorithm('Crc64Nvme')).toBe('CRC64NVME');
  });

  it('answers InvalidRequest for unknown names, as S3 does', () => {
    for (const bad of ['MD5', 'crc64', 'SHA512', '', 'crc32 c']) {
      expect(codeOf(() => parseChecksumAlgorithm(bad))).toBe('InvalidRequest');
    }
    expect(() => parseChecksumAlgorithm('MD4', 'x-amz-sdk-checksum-algorithm')).toThrow(
      'Value for x-amz-sdk-checksum-algorithm header is invalid.',
    );
  });
});

describe('checksumHeader', () => {
  it('names the lower-case x-amz-checksum header', () => {
    expect(checksumHeader('CRC32')).toBe('x-amz-checksum-crc32');
    expect(checksumHeader('CRC32C')).toBe('x-amz-checksum-crc32c');
    expect(checksumHeader('CRC64NVME')).toBe('x-amz-checksum-crc64nvme');
    expect(checksumHeader('SHA256')).toBe('x-amz-checksum-sha256');
  });
});

describe('known vectors', () => {
  it('CRC32 matches the standard check value and S3 examples', () => {
    expect(computeChecksum('CRC32', Buffer.from('123456789')).toString('hex')).toBe('cbf43926');
    expect(b64('CRC32', '')).toBe('AAAAAA==');
    expect(crc32Fallback(Buffer.from('123456789')).toString(16)).toBe('cbf43926');
  });

  it('CRC32C matches the Castagnoli check value', () => {
    expect(computeChecksum('CRC32C', Buffer.from('123456789')).toString('hex')).toBe('e3069283');
    expect(computeChecksum('CRC32C', Buffer.alloc(32)).toString('hex')).toBe('8a9136aa');
    expect(b64('CRC32C', '')).toBe('AAAAAA==');
  });

  // Vectors from @aws-sdk/crc64-nvme's Crc64Nvme.spec.ts (inputs are UTF-8 encoded there) and aws-checksums.
  const crc64Vectors: [string | Uint8Array, string][] = [
    ['', 'AAAAAAAAAAA='],
    ['123456789', 'rosUhgp5mIg='],
    ['a', 'jC+ERbTL/Dw='],
    ['abc', 'BeXKuz/B+us='],
    ['The quick brown fox jumps over the lazy dog', '12xUBUlUwUM='],
    [new Uint8Array([0]), '1dpQR+/shyg='],
    [new Uint8Array(4), 'bbgR5aHaUCQ='],
    [Buffer.from('\xFF\xFF\xFF\xFF', 'utf8'), 'dqAywHboEF0='],
    [new Uint8Array([0x01]), 'qrSgj9/ZDlE='],
    [new Uint8Array([0xff]), '/wAAAAAAAAA='],
    [new Uint8Array([0x41]), 'fe56MqW3Iz4='],
    ['Hello, World!\n', 'SoXXbx67KpE='],
  ];
  it.each(crc64Vectors)('CRC64NVME of %j', (input, expected) => {
    expect(b64('CRC64NVME', input)).toBe(expected);
  });

  it('CRC64NVME matches aws-checksums vectors', () => {
    expect(computeChecksum('CRC64NVME', Buffer.alloc(32)).toString('hex')).toBe('cf3473434d4ecf3b');
    expect(computeChecksum('CRC64NVME', Buffer.from('aaaaaaaaaa')).toString('hex')).toBe('0c1a80036d65c555');
    expect(computeChecksum('CRC64NVME', Buffer.from('hello world!')).toString('hex')).toBe('d9160d1fa8e418e3');
  });

  it('SHA1 and SHA256 equal node:crypto', () => {
    const data = randomBytes(1000);
    expect(computeChecksum('SHA1', data)).toEqual(createHash('sha1').update(data).digest());
    expect(computeChecksum('SHA256', data)).toEqual(createHash('sha256').update(data).digest());
  });
});

describe('createChecksummer', () => {
  it('gives the same digest for any chunking, including unaligned and empty chunks', () => {
    const data = randomBytes(10_007);
    for (const alg of CHECKSUM_ALGORITHMS) {
      const whole = computeChecksum(alg, data);
      const c = createChecksummer(alg);
      let i = 0;
      for (const size of [0, 1, 3, 7, 8, 9, 15, 16, 17, 1000, 0, 4096]) {
        c.update(data.subarray(i, i + size));
        i += size;
      }
      c.update(data.subarray(i));
      expect(c.digest(), alg).toEqual(whole);
      expect(c.digest().length).toBe(checksumDigestLength(alg));
    }
  });

  it('digest() does not end the stream', () => {
    for (const alg of CHECKSUM_ALGORITHMS) {
      const c = createChecksummer(alg);
      c.update(Buffer.from('hello '));
      const partial = c.digest();
      expect(c.digest()).toEqual(partial);
      c.update(Buffer.from('world'));
      expect(c.digest(), alg).toEqual(computeChecksum(alg, Buffer.from('hello world')));
    }
  });

  it('the CRC32 table fallback agrees with zlib for random data and continuation', () => {
    const data = randomBytes(5000);
    const whole = computeChecksum('CRC32', data).readUInt32BE(0);
    expect(crc32Fallback(data)).toBe(whole);
    expect(crc32Fallback(data.subarray(1234), crc32Fallback(data.subarray(0, 1234)))).toBe(whole);
  });
});

describe('isValidChecksumValue', () => {
  it('accepts canonical base64 of the right length only', () => {
    expect(isValidChecksumValue('CRC32', 'AAAAAA==')).toBe(true);
    expect(isValidChecksumValue('CRC64NVME', 'rosUhgp5mIg=')).toBe(true);
    expect(isValidChecksumValue('SHA256', b64('SHA256', 'x'))).toBe(true);
    expect(isValidChecksumValue('SHA1', b64('SHA1', 'x'))).toBe(true);
    expect(isValidChecksumValue('CRC32', 'rosUhgp5mIg=')).toBe(false); // 8 bytes
    expect(isValidChecksumValue('CRC64NVME', 'AAAAAA==')).toBe(false); // 4 bytes
    expect(isValidChecksumValue('CRC32', 'AAAAAA')).toBe(false); // unpadded
    expect(isValidChecksumValue('CRC32', 'AAAAAB==')).toBe(false); // non-zero padding bits
    expect(isValidChecksumValue('CRC32', 'AA AAA==')).toBe(false);
    expect(isValidChecksumValue('CRC32', '')).toBe(false);
    expect(isValidChecksumValue('CRC32', '!!!!!!==')).toBe(false);
  });
});

describe('compositeChecksum', () => {
  it('hashes the concatenated part digests and appends the part count', () => {
    const parts = [randomBytes(100), randomBytes(200), randomBytes(3)];
    for (const alg of CHECKSUM_ALGORITHMS) {
      const digests = parts.map((p) => computeChecksum(alg, p));
      const expected = computeChecksum(alg, Buffer.concat(digests)).toString('base64');
      expect(compositeChecksum(alg, digests)).toBe(`${expected}-3`);
    }
  });
  it('matches a known S3 composite value shape', () => {
    const digest = computeChecksum('SHA256', Buffer.from('abc'));
    expect(compositeChecksum('SHA256', [digest])).toMatch(/^[A-Za-z0-9+/]{43}=-1$/);
  });
});

describe('combineCrc', () => {
  const crcs: CrcAlgorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME'];
  it.each(crcs)('%s: combine(crc(A), crc(B), |B|) equals crc(A||B)', (alg) => {
    for (const [la, lb] of [
      [0, 0],
      [0, 17],
      [17, 0],
      [1, 1],
      [1000, 4096],
      [65_537, 131_071],
      [3, 1_000_003],
    ] as const) {
      const a = randomBytes(la);
      const b = randomBytes(lb);
      const combined = combineCrc(alg, computeChecksum(alg, a), { crc: computeChecksum(alg, b), length: lb });
      expect(combined, `${la}+${lb}`).toEqual(computeChecksum(alg, Buffer.concat([a, b])));
    }
  });

  it('folds many parts left to right into the full-object CRC', () => {
    const parts = [randomBytes(5000), randomBytes(1), randomBytes(77_777), randomBytes(8)];
    for (const alg of crcs) {
      let acc = computeChecksum(alg, parts[0]!);
      for (const p of parts.slice(1)) acc = combineCrc(alg, acc, { crc: computeChecksum(alg, p), length: p.length });
      expect(acc, alg).toEqual(computeChecksum(alg, Buffer.concat(parts)));
    }
  });

  it('CRC32: lengths of 4 GiB and beyond use the right power of x', () => {
    // x has order dividing 2^32 - 1 modulo the CRC-32 polynomial (zlib's x2n_table relies on it), so
    // appending B after 8 * k * (2^32 - 1) bits multiplies crc(A) by 1: combine = crc(A) XOR crc(B).
    const a = computeChecksum('CRC32', Buffer.from('hello'));
    const b = computeChecksum('CRC32', Buffer.from('world'));
    const xor = Buffer.from(a.map((v, i) => v ^ b[i]!));
    expect(combineCrc('CRC32', a, { crc: b, length: 2 ** 32 - 1 })).toEqual(xor);
    expect(combineCrc('CRC32', a, { crc: b, length: 2 * (2 ** 32 - 1) })).toEqual(xor);
    expect(combineCrc('CRC32', a, { crc: b, length: 2 ** 32 })).not.toEqual(xor);
  });

  it.each(crcs)('%s: combine agrees with streaming over a 16 MiB part', (alg) => {
    const a = randomBytes(333);
    const b = Buffer.alloc(16 * 1024 * 1024 + 5, 0x5a);
    const combined = combineCrc(alg, computeChecksum(alg, a), { crc: computeChecksum(alg, b), length: b.length });
    const c = createChecksummer(alg);
    c.update(a);
    c.update(b);
    expect(combined).toEqual(c.digest());
  });

  it('rejects digests of the wrong size and bad lengths', () => {
    expect(() => combineCrc('CRC64NVME', Buffer.alloc(4), { crc: Buffer.alloc(8), length: 1 })).toThrow(RangeError);
    expect(() => combineCrc('CRC32', Buffer.alloc(4), { crc: Buffer.alloc(4), length: -1 })).toThrow(RangeError);
    expect(() => combineCrc('CRC32', Buffer.alloc(4), { crc: Buffer.alloc(4), length: 1.5 })).toThrow(RangeError);
  });
});
