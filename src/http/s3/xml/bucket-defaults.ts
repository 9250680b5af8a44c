// The documents of AWS features Store never configures, as AWS answers for a bucket that never had them
// (RequestPaymentConfiguration, AccelerateConfiguration, BucketLoggingStatus), and PutBucketRequestPayment's body.

import { configRoot } from './config-xml.js';
import { XML_PROLOG, openRoot } from './escape.js';
import { malformedXml, optionalLeaf } from './reader.js';

export type Payer = 'BucketOwner' | 'Requester';

/** GetBucketRequestPayment: the bucket owner pays, always. */
export function buildRequestPaymentConfiguration(): string {
  return `${openRoot('RequestPaymentConfiguration')}<Payer>BucketOwner</Payer></RequestPaymentConfiguration>`;
}

/** GetBucketAccelerateConfiguration of a bucket never accelerated: no Status. */
export function buildAccelerateConfiguration(): string {
  return `${openRoot('AccelerateConfiguration')}</AccelerateConfiguration>`;
}

/** GetBucketLogging with logging off: an empty status, in the namespace AWS uses for this one document. */
export function buildBucketLoggingStatus(): string {
  return `${XML_PROLOG}<BucketLoggingStatus xmlns="http://doc.s3.amazonaws.com/2006-03-01"></BucketLoggingStatus>`;
}

/** PutBucketRequestPayment's body: Payer must be BucketOwner or Requester (else MalformedXML, as AWS answers). */
export function parseRequestPaymentConfiguration(body: Uint8Array | string): Payer {
  const payer = optionalLeaf(configRoot(body, 'RequestPaymentConfiguration'), 'Payer');
  if (payer !== 'BucketOwner' && payer !== 'Requester') throw malformedXml();
  return payer;
}
