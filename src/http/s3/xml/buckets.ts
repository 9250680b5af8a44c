// Bucket-level responses: ListAllMyBucketsResult (ListBuckets) and LocationConstraint (GetBucketLocation).

import { type Owner, el, escapeXml, isoTimestamp, openRoot, optEl, ownerEl } from './escape.js';

export interface BucketSummary {
  name: string;
  creationDate: Date;
  /** Sent as <BucketRegion> by current S3. */
  region?: string;
}

export interface ListAllMyBucketsInput {
  owner: Owner;
  buckets: BucketSummary[];
  /** Present when the listing was cut at max-buckets. */
  continuationToken?: string;
  /** Echoed when the request filtered by prefix. */
  prefix?: string;
}

export function buildListAllMyBucketsResult(input: ListAllMyBucketsInput): string {
  let out = `${openRoot('ListAllMyBucketsResult')}${ownerEl(input.owner)}<Buckets>`;
  for (const b of input.buckets) {
    out += `<Bucket>${el('Name', b.name)}${el('CreationDate', isoTimestamp(b.creationDate))}${optEl('BucketRegion', b.region)}</Bucket>`;
  }
  out += `</Buckets>${optEl('ContinuationToken', input.continuationToken)}${optEl('Prefix', input.prefix)}</ListAllMyBucketsResult>`;
  return out;
}

/**
 * GetBucketLocation's body. S3 answers an empty element for us-east-1 (clients map that back to
 * us-east-1), so undefined, '' and 'us-east-1' all render empty.
 */
export function buildLocationConstraint(region: string | undefined): string {
  const root = openRoot('LocationConstraint');
  if (region === undefined || region === '' || region === 'us-east-1') return `${root}</LocationConstraint>`;
  return `${root}${escapeXml(region)}</LocationConstraint>`;
}
