// The S3 <Error> document. S3 sends it without a namespace:
// <Error><Code/><Message/>[detail elements]<Resource/><RequestId/><HostId/></Error>

import type { AppError } from '../../../core/errors.js';
import { XML_PROLOG, el, optEl } from './escape.js';

export interface ErrorDocument {
  code: string;
  message: string;
  /** Extra elements S3 adds for some codes (Key, BucketName, ArgumentName, RangeRequested, ...). */
  details?: Record<string, string>;
  resource?: string;
  requestId: string;
  hostId?: string;
}

// Detail names come from our own code, but a bad one must not produce broken XML.
const ELEMENT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const RESERVED = new Set(['Code', 'Message', 'Resource', 'RequestId', 'HostId']);

export function buildErrorXml(doc: ErrorDocument): string {
  let out = `${XML_PROLOG}<Error>${el('Code', doc.code)}${el('Message', doc.message)}`;
  if (doc.details) {
    for (const [name, value] of Object.entries(doc.details)) {
      if (ELEMENT_NAME.test(name) && !RESERVED.has(name)) out += el(name, value);
    }
  }
  out += `${optEl('Resource', doc.resource)}${el('RequestId', doc.requestId)}${optEl('HostId', doc.hostId)}</Error>`;
  return out;
}

/** The error document for an AppError. */
export function buildAppErrorXml(err: AppError, ids: { requestId: string; hostId?: string }): string {
  return buildErrorXml({
    code: err.code,
    message: err.message,
    details: err.details,
    resource: err.resource,
    requestId: ids.requestId,
    hostId: ids.hostId,
  });
}
