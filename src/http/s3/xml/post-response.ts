// PostResponse: the body of a POST Object answered with success_action_status 201.

import { el, etagEl, XML_PROLOG } from './escape.js';

export interface PostResponseInput {
  location: string;
  bucket: string;
  key: string;
  etag: string;
}

/** S3 writes this document without a namespace. */
export function buildPostResponse(input: PostResponseInput): string {
  return (
    `${XML_PROLOG}<PostResponse>${el('Location', input.location)}${el('Bucket', input.bucket)}` +
    `${el('Key', input.key)}${etagEl(input.etag)}</PostResponse>`
  );
}
