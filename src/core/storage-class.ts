// Storage classes an object may be stored with (x-amz-storage-class on PutObject, CopyObject, CreateMultipartUpload
// and POST forms). Store keeps the class a client asked for on the version and returns it everywhere S3 does; it
// never stores a request under another class in silence. What a class means here (the bytes stay on this server,
// served at once, until lifecycle rules with tiering move them): docs/s3-compatibility.md, "Storage classes".

import { AppError } from './errors.js';

/** AWS's classes for general-purpose buckets. */
export const STORAGE_CLASSES = [
  'STANDARD',
  'REDUCED_REDUNDANCY',
  'STANDARD_IA',
  'ONEZONE_IA',
  'INTELLIGENT_TIERING',
  'GLACIER',
  'DEEP_ARCHIVE',
  'GLACIER_IR',
] as const;
export type StorageClass = (typeof STORAGE_CLASSES)[number];

/**
 * The class a request asks for: STANDARD when it names none. Throws InvalidStorageClass for any other value
 * (an unknown name, or AWS classes that need other hardware: OUTPOSTS, SNOW, EXPRESS_ONEZONE, FSX_*).
 */
export function parseStorageClass(value: string | undefined): StorageClass {
  if (value === undefined) return 'STANDARD';
  const found = STORAGE_CLASSES.find((c) => c === value);
  if (found === undefined) {
    throw new AppError('InvalidStorageClass', { details: { StorageClassRequested: value } });
  }
  return found;
}
