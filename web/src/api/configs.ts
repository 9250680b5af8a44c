// Bucket configurations: a GET of one that was never set answers S3's 404 code for it, which the console shows as
// "not set" rather than as an error.

import { api, Api } from './index';
import { ApiError } from './errors';

const NOT_SET = new Set([
  'NoSuchTagSet',
  'ServerSideEncryptionConfigurationNotFoundError',
  'NoSuchLifecycleConfiguration',
  'NoSuchCORSConfiguration',
  'ObjectLockConfigurationNotFoundError',
  'NoSuchBucketPolicy',
]);

export type ConfigKind = 'tagging' | 'encryption' | 'lifecycle' | 'cors' | 'object-lock' | 'policy' | 'versioning';

/** A bucket configuration, or null when it is not set. */
export async function getConfig<T>(bucket: string, kind: ConfigKind, signal?: AbortSignal): Promise<T | null> {
  try {
    return await api.get<T>(Api.bucket(bucket, `/${kind}`), undefined, signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && NOT_SET.has(err.code)) return null;
    throw err;
  }
}

export function putConfig<T>(bucket: string, kind: ConfigKind, body: unknown): Promise<T> {
  return api.put<T>(Api.bucket(bucket, `/${kind}`), body);
}

export function deleteConfig(bucket: string, kind: ConfigKind): Promise<void> {
  return api.del(Api.bucket(bucket, `/${kind}`));
}
