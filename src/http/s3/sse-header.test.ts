import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkSseHeaders } from './sse-header.js';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;
const codeOf = (headers: Record<string, string>): string | undefined => {
  try {
    checkSseHeaders(req(headers));
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe('checkSseHeaders', () => {
  it('accepts no header and AES256', () => {
    expect(checkSseHeaders(req({}))).toBeUndefined();
    expect(checkSseHeaders(req({ 'x-amz-server-side-encryption': 'AES256' }))).toBe('AES256');
    expect(
      checkSseHeaders(
        req({ 'x-amz-server-side-encryption': 'AES256', 'x-amz-server-side-encryption-bucket-key-enabled': 'true' }),
      ),
    ).toBe('AES256');
  });

  it('refuses KMS with NotImplemented, never silently', () => {
    expect(codeOf({ 'x-amz-server-side-encryption': 'aws:kms' })).toBe('NotImplemented');
    expect(codeOf({ 'x-amz-server-side-encryption': 'aws:kms:dsse' })).toBe('NotImplemented');
  });

  it('refuses unknown algorithms and a KMS key id without aws:kms with InvalidArgument', () => {
    expect(codeOf({ 'x-amz-server-side-encryption': 'AES128' })).toBe('InvalidArgument');
    expect(codeOf({ 'x-amz-server-side-encryption': 'aes256' })).toBe('InvalidArgument');
    expect(
      codeOf({ 'x-amz-server-side-encryption': 'AES256', 'x-amz-server-side-encryption-aws-kms-key-id': 'k' }),
    ).toBe('InvalidArgument');
    expect(codeOf({ 'x-amz-server-side-encryption-aws-kms-key-id': 'k' })).toBe('InvalidArgument');
  });

  it('refuses customer-provided keys (SSE-C) on the object and on a copy source', () => {
    expect(codeOf({ 'x-amz-server-side-encryption-customer-algorithm': 'AES256' })).toBe('NotImplemented');
    expect(codeOf({ 'x-amz-copy-source-server-side-encryption-customer-algorithm': 'AES256' })).toBe('NotImplemented');
  });
});
