// User-defined metadata (x-amz-meta-*) as S3 limits it, for every way it arrives: PUT headers, POST form fields,
// and restored archives. Values are kept in header form (one character per byte, as Node decodes headers).

import { AppError } from './errors.js';
import { isHeaderName } from './header-text.js';

/** S3's limit on user-defined metadata: 2 KB of names and values together, counted in bytes. */
export const MAX_USER_META_BYTES = 2048;

const LOWER_CASE = /^[^A-Z]*$/;

/** True for a metadata name as S3 stores it: an HTTP token, lower-cased (headers arrive lower-cased). */
export function isUserMetaName(name: string): boolean {
  return isHeaderName(name) && LOWER_CASE.test(name);
}

/** Throws MetadataTooLarge when the names and values (in header form) add up to more than 2 KB. */
export function checkUserMetaSize(meta: Readonly<Record<string, string>>): void {
  let bytes = 0;
  for (const [name, value] of Object.entries(meta))
    bytes += Buffer.byteLength(name, 'latin1') + Buffer.byteLength(value, 'latin1');
  if (bytes > MAX_USER_META_BYTES) {
    throw new AppError('MetadataTooLarge', {
      details: { Size: String(bytes), MaxSizeAllowed: String(MAX_USER_META_BYTES) },
    });
  }
}
