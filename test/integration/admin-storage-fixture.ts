// Shared by the admin bucket and object tests: JSON calls with the admin's token, error-envelope assertions, the
// audit records the server logged, new buckets, and raw object uploads and downloads through the admin API.

import { expect } from 'vitest';
import type { adminCall } from '../helpers/admin-session.js';
import { uniqueBucket } from '../helpers/clients.js';
import type { Store } from '../helpers/store.js';

export type Json = Record<string, unknown>;
export type CallResult = Awaited<ReturnType<typeof adminCall>>;

/** `key=<encoded key>` plus any further query text (`&versionId=...`). */
export const keyQuery = (key: string, extra = ''): string => `key=${encodeURIComponent(key)}${extra}`;

/** Asserts the admin error envelope with this code and status, and returns its message. */
export function expectError(res: { status: number; body: unknown }, status: number, code: string): string {
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ error: code, statusCode: status });
  expect(res.status).toBe(status);
  return (res.body as { message: string }).message;
}

export interface AdminFixture {
  call(method: string, path: string, body?: unknown): Promise<CallResult>;
  /** The audit records the server has logged so far (the sink logs each with `audit: true`). */
  auditEvents(): Json[];
  /** Creates a bucket with a fresh name through POST /buckets (`body` adds options) and returns the name. */
  newBucket(body?: Json): Promise<string>;
  /** Raw PUT of an object's bytes. */
  upload(
    object: { bucket: string; key: string },
    body: NonNullable<RequestInit['body']>,
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** Raw GET of an object's bytes; `extra` is more query text. */
  download(
    object: { bucket: string; key: string },
    headers?: Record<string, string>,
    extra?: string,
  ): Promise<Response>;
}

/** Helpers bound to a test file's store, as its bootstrap admin. */
export function adminFixture(store: Store): AdminFixture {
  const base = (): string => `${store.server.url}/api/admin`;
  const call = (method: string, path: string, body?: unknown) => store.adminCall(method, path, body);
  return {
    call,
    auditEvents() {
      return store.server
        .output()
        .split('\n')
        .flatMap((line) => {
          try {
            const parsed = JSON.parse(line) as Json;
            return parsed['audit'] === true ? [parsed] : [];
          } catch {
            return [];
          }
        });
    },
    async newBucket(body = {}) {
      const name = uniqueBucket('adm');
      const res = await call('POST', '/buckets', { name, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return name;
    },
    async upload({ bucket, key }, body, headers = {}) {
      return fetch(`${base()}/buckets/${bucket}/objects/content?${keyQuery(key)}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${await store.admin()}`, ...headers },
        body,
        duplex: 'half',
      } as RequestInit);
    },
    async download({ bucket, key }, headers = {}, extra = '') {
      return fetch(`${base()}/buckets/${bucket}/objects/content?${keyQuery(key, extra)}`, {
        headers: { authorization: `Bearer ${await store.admin()}`, ...headers },
      });
    },
  };
}
