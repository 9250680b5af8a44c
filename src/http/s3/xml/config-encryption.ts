// The ServerSideEncryptionConfiguration document of Put/GetBucketEncryption.

import { type BucketEncryption, parseSseAlgorithm, validateBucketEncryption } from '../../../core/bucket-encryption.js';
import { AppError } from '../../../core/errors.js';
import { configRoot, containerChildren, optionalBoolean, optionalChild } from './config-xml.js';
import { el, openRoot, optEl } from './escape.js';
import { malformedXml, optionalLeaf, requiredLeaf } from './reader.js';

// S3's schema enumeration; a value outside it is MalformedXML, one inside it but not AES256 is refused
// by parseSseAlgorithm with a clear error.
const KNOWN_ALGORITHMS = new Set(['AES256', 'aws:kms', 'aws:kms:dsse', 'aws:fsx']);

/**
 * Parses a PutBucketEncryption body: exactly one Rule with ApplyServerSideEncryptionByDefault.
 * SSEAlgorithm AES256 is accepted; aws:kms and aws:kms:dsse are AppError NotImplemented; a
 * KMSMasterKeyID with AES256 is InvalidArgument, as S3 answers; BucketKeyEnabled is kept. Other
 * faults are MalformedXML (MissingRequestBodyError for an empty body).
 */
export function parseBucketEncryption(body: Uint8Array | string): BucketEncryption {
  const root = configRoot(body, 'ServerSideEncryptionConfiguration');
  const rules = containerChildren(root, 'Rule');
  const rule = rules[0];
  if (rule === undefined || rules.length > 1) throw malformedXml();
  const byDefault = optionalChild(rule, 'ApplyServerSideEncryptionByDefault');
  if (byDefault === undefined) throw malformedXml();
  const algorithm = requiredLeaf(byDefault, 'SSEAlgorithm');
  if (!KNOWN_ALGORITHMS.has(algorithm)) throw malformedXml();
  const config: BucketEncryption = { sseAlgorithm: parseSseAlgorithm(algorithm) };
  if (optionalLeaf(byDefault, 'KMSMasterKeyID') !== undefined) {
    throw new AppError('InvalidArgument', {
      message: 'a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or aws:kms:dsse',
    });
  }
  const bucketKey = optionalBoolean(rule, 'BucketKeyEnabled');
  if (bucketKey !== undefined) config.bucketKeyEnabled = bucketKey;
  validateBucketEncryption(config);
  return config;
}

/** GetBucketEncryption's body. */
export function buildBucketEncryption(config: BucketEncryption): string {
  const algorithm = el('SSEAlgorithm', config.sseAlgorithm);
  const bucketKey = optEl('BucketKeyEnabled', config.bucketKeyEnabled);
  const rule = `<ApplyServerSideEncryptionByDefault>${algorithm}</ApplyServerSideEncryptionByDefault>${bucketKey}`;
  return `${openRoot('ServerSideEncryptionConfiguration')}<Rule>${rule}</Rule></ServerSideEncryptionConfiguration>`;
}
