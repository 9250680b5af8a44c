// Object-level responses: CopyObjectResult, CopyPartResult (UploadPartCopy) and DeleteResult (DeleteObjects).

import type { ChecksumType } from '../../../core/checksums.js';
import {
  type ChecksumValues,
  checksumEls,
  checksumTypeEl,
  el,
  etagEl,
  isoTimestamp,
  openRoot,
  optEl,
} from './escape.js';

export interface CopyResultInput {
  etag: string;
  lastModified: Date;
  checksums?: ChecksumValues;
  /** CopyObjectResult only. */
  checksumType?: ChecksumType;
}

export function buildCopyObjectResult(input: CopyResultInput): string {
  return (
    `${openRoot('CopyObjectResult')}${etagEl(input.etag)}${el('LastModified', isoTimestamp(input.lastModified))}` +
    `${checksumTypeEl(input.checksumType)}${checksumEls(input.checksums)}</CopyObjectResult>`
  );
}

export function buildCopyPartResult(input: Omit<CopyResultInput, 'checksumType'>): string {
  return (
    `${openRoot('CopyPartResult')}${etagEl(input.etag)}${el('LastModified', isoTimestamp(input.lastModified))}` +
    `${checksumEls(input.checksums)}</CopyPartResult>`
  );
}

export interface DeletedEntry {
  key: string;
  versionId?: string;
  /** True when the delete created (or removed) a delete marker. */
  deleteMarker?: boolean;
  deleteMarkerVersionId?: string;
}

export interface DeleteErrorEntry {
  key: string;
  versionId?: string;
  code: string;
  message: string;
}

export interface DeleteResultInput {
  /** Quiet mode reports only the errors. */
  quiet: boolean;
  deleted: DeletedEntry[];
  errors: DeleteErrorEntry[];
}

export function buildDeleteResult(input: DeleteResultInput): string {
  let out = openRoot('DeleteResult');
  if (!input.quiet) {
    for (const d of input.deleted) {
      out +=
        `<Deleted>${el('Key', d.key)}${optEl('VersionId', d.versionId)}${optEl('DeleteMarker', d.deleteMarker)}` +
        `${optEl('DeleteMarkerVersionId', d.deleteMarkerVersionId)}</Deleted>`;
    }
  }
  for (const e of input.errors) {
    out += `<Error>${el('Key', e.key)}${optEl('VersionId', e.versionId)}${el('Code', e.code)}${el('Message', e.message)}</Error>`;
  }
  return `${out}</DeleteResult>`;
}
