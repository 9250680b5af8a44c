// Assertions shared by the S3 integration tests: the error an SDK call failed with (code and HTTP status),
// and small body helpers. Codes come from the parsed S3 error (`err.name` / `err.Code`), never from messages.

import { createHash } from 'node:crypto';
import { expect } from 'vitest';

export interface S3CallError {
  name: string;
  $response?: { headers?: Record<string, string> };
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

/** Awaits a call that must fail and returns its error (the test fails if it succeeds). */
export async function failure(call: Promise<unknown>): Promise<S3CallError> {
  let result: unknown;
  try {
    result = await call;
  } catch (err) {
    return err as S3CallError;
  }
  throw new Error(
    `expected the call to fail, it answered ${JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))?.slice(0, 300)}`,
  );
}

/** Asserts that a call fails with this S3 error code and HTTP status. */
export async function expectS3Error(call: Promise<unknown>, code: string, status: number): Promise<S3CallError> {
  const err = await failure(call);
  expect({ code: err.Code ?? err.name, status: err.$metadata?.httpStatusCode }).toEqual({ code, status });
  return err;
}

/**
 * Asserts that a call fails with this HTTP status and no S3 error document: a HEAD, or a 304, carries no body, so
 * the SDK can name no code (it reports `Unknown`, or `NotFound` for a 404).
 */
export async function expectBodilessError(call: Promise<unknown>, status: number): Promise<S3CallError> {
  const err = await failure(call);
  expect({ code: err.Code ?? err.name, status: err.$metadata?.httpStatusCode }).toEqual({
    code: status === 404 ? 'NotFound' : 'Unknown',
    status,
  });
  return err;
}

/** The raw response headers an SDK error was built from. */
export function errorHeaders(err: S3CallError): Record<string, string> {
  return err.$response?.headers ?? {};
}

export function md5Hex(data: Buffer): string {
  return createHash('md5').update(data).digest('hex');
}

export function md5Base64(data: Buffer): string {
  return createHash('md5').update(data).digest('base64');
}

/**
 * Asserts two byte strings are equal. (toEqual on Buffers compares element by element: ~1 s for 256 KiB.) A failure
 * shows lengths and MD5s rather than a byte dump.
 */
export function expectSameBytes(actual: Buffer, expected: Buffer): void {
  expect({ length: actual.length, md5: md5Hex(actual) }).toEqual({ length: expected.length, md5: md5Hex(expected) });
}

/** A GetObject body (an SDK stream mixin) read fully. */
export async function bodyBytes(body: unknown): Promise<Buffer> {
  const withBytes = body as { transformToByteArray(): Promise<Uint8Array> };
  return Buffer.from(await withBytes.transformToByteArray());
}
