// Properties of SigV4 verification: no single-character change to a signed request (header-signed or presigned)
// verifies. Arbitrary input and round trips are verify.fuzz.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SignedRequest } from './types.js';
import { verifyRequest } from './verify.js';
import { expectCodeIn, fraction, outcomeOf } from '../../test/helpers/fuzz.js';
import { headerSigned, optsFor, presigned, signableArb, VERIFY_CODES } from '../../test/helpers/sigv4-signable.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Replaces the character at `pick` (a fraction of the text) with another alphanumeric one that is not the same
 * letter in another case: case is meaningful nearly everywhere in a signed request, but not in hex escapes or
 * signature digits, and a neutral change must not count as a failure to detect.
 */
function substitute(
  text: string,
  { pick, choice }: { pick: number; choice: number },
  eligible: (i: number) => boolean = () => true,
): string | undefined {
  const positions = [...text].map((_, i) => i).filter(eligible);
  if (positions.length === 0) return undefined;
  const i = positions[Math.floor(pick * positions.length) % positions.length] as number;
  const old = text[i] as string;
  const candidates = [...ALNUM].filter((c) => c.toLowerCase() !== old.toLowerCase());
  return text.slice(0, i) + (candidates[choice % candidates.length] as string) + text.slice(i + 1);
}

type Target =
  | 'method'
  | 'path'
  | 'query'
  | 'header'
  | 'drop-header'
  | 'add-amz-header'
  | 'credential'
  | 'signed-headers'
  | 'signature';

function mutateHeaderSigned(
  req: SignedRequest,
  target: Target,
  { pick, choice }: { pick: number; choice: number },
): SignedRequest | undefined {
  const headers = { ...req.headers } as Record<string, string>;
  const auth = headers['authorization'] as string;
  const signedNames = /SignedHeaders=([^,\s]+)/.exec(auth)?.[1]?.split(';') ?? [];
  const authPart = (
    name: string,
    eligible: (i: number, value: string) => boolean = () => true,
  ): SignedRequest | undefined => {
    const m = new RegExp(`${name}=([^,\\s]+)`).exec(auth);
    if (!m?.[1]) return undefined;
    const value = m[1];
    const changed = substitute(value, { pick, choice }, (i) => eligible(i, value));
    return changed === undefined
      ? undefined
      : { ...req, headers: { ...headers, authorization: auth.replace(`${name}=${value}`, `${name}=${changed}`) } };
  };
  switch (target) {
    case 'method': {
      const method = substitute(req.method, { pick, choice });
      return method === undefined ? undefined : { ...req, method };
    }
    case 'path': {
      const rawPath = substitute(req.rawPath, { pick, choice });
      return rawPath === undefined ? undefined : { ...req, rawPath };
    }
    case 'query': {
      const rawQuery = substitute(req.rawQuery, { pick, choice });
      return rawQuery === undefined ? undefined : { ...req, rawQuery };
    }
    case 'header': {
      const name = signedNames[Math.floor(pick * signedNames.length) % signedNames.length] as string;
      // Spaces and tabs are folded by canonicalisation: only other characters carry meaning.
      const value = substitute(
        headers[name] ?? '',
        { pick: (pick * 7) % 1, choice: choice },
        (i) => !/[ \t]/.test((headers[name] ?? '')[i] ?? ' '),
      );
      return value === undefined ? undefined : { ...req, headers: { ...headers, [name]: value } };
    }
    case 'drop-header': {
      const name = signedNames[Math.floor(pick * signedNames.length) % signedNames.length] as string;
      if ((headers[name] ?? '').trim() === '') return undefined; // a blank value canonicalises like no header
      delete headers[name];
      return { ...req, headers };
    }
    case 'add-amz-header':
      return { ...req, headers: { ...headers, 'x-amz-copy-source': '/other/key' } };
    case 'credential':
      return authPart('Credential');
    case 'signed-headers':
      return authPart('SignedHeaders');
    case 'signature':
      return authPart('Signature');
  }
}

describe('a changed request never verifies', () => {
  const targets: Target[] = [
    'method',
    'path',
    'query',
    'header',
    'drop-header',
    'add-amz-header',
    'credential',
    'signed-headers',
    'signature',
  ];

  it('header signatures: any single-character change to what was signed is refused', () => {
    fc.assert(
      // eslint-disable-next-line max-params -- fast-check passes one argument per arbitrary
      fc.property(signableArb, fc.constantFrom(...targets), fraction, fc.nat(), (s, target, pick, choice) => {
        const mutated = mutateHeaderSigned(headerSigned(s), target, { pick: pick, choice: choice });
        if (mutated === undefined) return;
        const outcome = outcomeOf(() => verifyRequest(mutated, optsFor(s)));
        expect(outcome.ok ? `verified (${outcome.value?.accessKeyId})` : 'refused').toBe('refused');
        expectCodeIn(outcome, VERIFY_CODES);
      }),
      { numRuns: 1000 },
    );
  });

  it('presigned URLs: any single-character change to the method, path, host or query is refused', () => {
    fc.assert(
      fc.property(
        signableArb,
        fc.constantFrom('method', 'path', 'query', 'host'),
        fraction,
        fc.nat(),
        // eslint-disable-next-line max-params -- fast-check passes one argument per arbitrary
        (s, target, pick, choice) => {
          const req = presigned(s, 3600);
          let mutated: SignedRequest | undefined;
          if (target === 'host') {
            const host = substitute(
              req.headers['host'] as string,
              { pick, choice },
              (i) => (req.headers['host'] as string)[i] !== ':',
            );
            mutated = host === undefined ? undefined : { ...req, headers: { host } };
          } else {
            mutated = mutateHeaderSigned(req, target as Target, { pick: pick, choice: choice });
          }
          if (mutated === undefined) return;
          const outcome = outcomeOf(() => verifyRequest(mutated, optsFor(s)));
          expect(outcome.ok ? `verified (${outcome.value?.accessKeyId})` : 'refused').toBe('refused');
          expectCodeIn(outcome, VERIFY_CODES);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
