// RestoreRequest (RestoreObject's body): only Days is used; an empty body means one day. Tier and
// GlacierJobParameters are accepted and ignored (every tier restores the same way here). Failures are MalformedXML.
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_RestoreObject.html

import { AppError } from '../../../core/errors.js';
import { optionalInt } from './config-xml.js';
import { assertContainer, malformedXml, readXml } from './reader.js';

/** Days a restored copy stays local, at most (S3 allows up to 30,000 days in some tiers; Store caps it here). */
export const MAX_RESTORE_DAYS = 36_500;

/** The restore's Days (1 when the body or Days is absent). Throws MalformedXML, InvalidArgument (Days < 1). */
export function parseRestoreRequest(body: Uint8Array): { days: number } {
  const root = readXml(body);
  if (root === undefined) return { days: 1 };
  if (root.name !== 'RestoreRequest') throw malformedXml();
  assertContainer(root);
  const days = optionalInt(root, 'Days') ?? 1;
  if (days < 1 || days > MAX_RESTORE_DAYS) {
    throw new AppError('InvalidArgument', {
      message: `Days must be between 1 and ${MAX_RESTORE_DAYS}.`,
      details: { ArgumentName: 'Days' },
    });
  }
  return { days };
}
