// Shared pieces of the property-based and fuzz tests (src/**/*.fuzz.test.ts): the "AppError or a value, never
// anything else" oracle, a timeout for stream decoders that must never hang, and byte mutators for hostile inputs.

import fc from 'fast-check';
import { AppError, type ErrorCode } from '../../src/core/errors.js';

/** What a parser did with one input: returned a value, or threw the one error type clients may see. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: AppError };

/**
 * Runs `fn` and reports its value or its AppError. Anything else thrown (TypeError, RangeError, a plain Error) is
 * rethrown with the input attached, so fast-check shrinks it and the failure names the input: that is the bug.
 */
export function outcomeOf<T>(fn: () => T): Outcome<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err };
    throw err;
  }
}

/** The async form of outcomeOf. */
export async function outcomeOfAsync<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err };
    throw err;
  }
}

/** Asserts a failure is an AppError with one of `codes` (a client error, never a 500). */
export function expectCodeIn(outcome: Outcome<unknown>, codes: readonly ErrorCode[]): void {
  if (outcome.ok) return;
  if (!codes.includes(outcome.error.code)) {
    throw new Error(`unexpected code ${outcome.error.code} (${outcome.error.message}); allowed: ${codes.join(', ')}`);
  }
  if (outcome.error.statusCode >= 500 && outcome.error.code !== 'NotImplemented') {
    throw new Error(`a server error for client input: ${outcome.error.code}`);
  }
}

/** Rejects when `promise` has not settled within `ms`: the hang a hostile input must never cause. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms (a hang)`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One edit of a byte string: flip, replace, insert, delete, duplicate a slice, truncate. */
export type Mutation =
  | { kind: 'set'; byte: number }
  | { kind: 'insert'; bytes: Uint8Array }
  | { kind: 'delete'; length: number }
  | { kind: 'duplicate'; length: number }
  | { kind: 'truncate' }
  | { kind: 'zero'; length: number };

/**
 * A position as a fraction in [0, 1), uniform. Not fc.double: it draws uniformly among representable doubles, nearly
 * all of which are tiny, so every "random" position would be the very start of the input.
 */
export const fraction: fc.Arbitrary<number> = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000);

/** Positions are fractions of the input's length, so one arbitrary serves inputs of any size. */
export const mutationArb: fc.Arbitrary<{ where: number; m: Mutation }> = fc.record({
  where: fraction,
  m: fc.oneof(
    fc.record({ kind: fc.constant('set' as const), byte: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('insert' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
    fc.record({ kind: fc.constant('delete' as const), length: fc.integer({ min: 1, max: 64 }) }),
    fc.record({ kind: fc.constant('duplicate' as const), length: fc.integer({ min: 1, max: 64 }) }),
    fc.record({ kind: fc.constant('truncate' as const) }),
    fc.record({ kind: fc.constant('zero' as const), length: fc.integer({ min: 1, max: 64 }) }),
  ),
});

/** Applies mutations in order (each position taken as a fraction of the current length). */
export function mutate(input: Uint8Array, edits: ReadonlyArray<{ where: number; m: Mutation }>): Buffer {
  let out = Buffer.from(input);
  for (const { where, m } of edits) {
    const at = Math.min(out.length, Math.floor(where * (out.length + 1)));
    switch (m.kind) {
      case 'set':
        if (at < out.length) out[at] = m.byte === out[at] ? (m.byte + 1) & 0xff : m.byte;
        break;
      case 'insert':
        out = Buffer.concat([out.subarray(0, at), m.bytes, out.subarray(at)]);
        break;
      case 'delete':
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + m.length)]);
        break;
      case 'duplicate':
        out = Buffer.concat([out.subarray(0, at + m.length), out.subarray(at)]);
        break;
      case 'truncate':
        out = out.subarray(0, at);
        break;
      case 'zero':
        out = Buffer.from(out);
        out.fill(0, at, Math.min(out.length, at + m.length));
        break;
    }
  }
  return out;
}

/** Strings made of the given fragments (markup pieces, separators, keywords) and random characters between them. */
export function fragmentString(fragments: readonly string[], maxPieces = 30): fc.Arbitrary<string> {
  return fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...fragments) },
        { weight: 1, arbitrary: fc.string({ maxLength: 4, unit: 'binary' }) },
      ),
      { maxLength: maxPieces },
    )
    .map((parts) => parts.join(''));
}
