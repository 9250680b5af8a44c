// x-amz-copy-source: `bucket/key[?versionId=..]`, URL-encoded, with or without a leading slash.

import type { IncomingMessage } from 'node:http';
import { AppError } from '../../core/errors.js';
import type { ReadConditions } from '../../core/conditions.js';
import { headerOf } from './context.js';

export interface CopySource {
  bucket: string;
  key: string;
  versionId?: string | undefined;
}

/** Throws InvalidArgument for a copy source that names no bucket and key or cannot be decoded. */
export function parseCopySource(req: IncomingMessage): CopySource {
  const raw = headerOf(req, 'x-amz-copy-source') ?? '';
  const q = raw.indexOf('?');
  const path = (q < 0 ? raw : raw.slice(0, q)).replace(/^\//, '');
  let versionId: string | undefined;
  if (q >= 0) {
    const params = new URLSearchParams(raw.slice(q + 1));
    versionId = params.get('versionId') ?? undefined;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch (err) {
    throw new AppError('InvalidArgument', {
      message: 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey',
      details: { ArgumentName: 'x-amz-copy-source' },
      cause: err,
    });
  }
  const slash = decoded.indexOf('/');
  if (slash <= 0 || slash === decoded.length - 1) {
    throw new AppError('InvalidArgument', {
      message: 'Copy Source must mention the source bucket and key: sourcebucket/sourcekey',
      details: { ArgumentName: 'x-amz-copy-source' },
    });
  }
  return { bucket: decoded.slice(0, slash), key: decoded.slice(slash + 1), versionId };
}

export function copySourceConditions(req: IncomingMessage): ReadConditions {
  return {
    ifMatch: headerOf(req, 'x-amz-copy-source-if-match'),
    ifNoneMatch: headerOf(req, 'x-amz-copy-source-if-none-match'),
    ifModifiedSince: headerOf(req, 'x-amz-copy-source-if-modified-since'),
    ifUnmodifiedSince: headerOf(req, 'x-amz-copy-source-if-unmodified-since'),
  };
}
