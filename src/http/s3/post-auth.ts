// Who sent a POST Object form: anonymous (no signature fields), or an access key whose SigV4 signature (or, with
// STORE_SIGV2=on, SigV2 signature) over the base64 policy verifies.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-authentication-HTTPPOST.html

import { AppError } from '../../core/errors.js';
import { parseAmzDate, type RegionRule } from '../../sigv4/auth-params.js';
import { ALGORITHM } from '../../sigv4/canonical.js';
import { deriveSigningKey, signatureBytes, signatureMatches } from '../../sigv4/signature.js';
import { signatureV2, signatureV2Matches } from '../../sigv4/sigv2.js';
import type { SecretLookup } from '../../sigv4/types.js';
import { missingField, type FormFields } from './post-form.js';
import { decodePostPolicy, type PostPolicy } from './post-policy.js';

export type FormAuth =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'signed';
      readonly scheme: 'sigv4' | 'sigv2';
      readonly accessKeyId: string;
      readonly policy: PostPolicy;
      /** X-Amz-Date (SigV4); a SigV2 form carries no signing time. */
      readonly signedAt: number | undefined;
    };

// The names S3 uses for these fields in its error messages.
const SIGNATURE_FIELDS = [
  ['x-amz-algorithm', 'X-Amz-Algorithm'],
  ['x-amz-credential', 'X-Amz-Credential'],
  ['x-amz-date', 'X-Amz-Date'],
  ['x-amz-signature', 'X-Amz-Signature'],
] as const;

function invalidCredential(reason: string, details: Record<string, string> = {}): AppError {
  return new AppError('InvalidArgument', {
    message: `Error parsing the X-Amz-Credential parameter; ${reason}`,
    details: { ArgumentName: 'x-amz-credential', ...details },
  });
}

function parseCredential(value: string, region: RegionRule): { accessKeyId: string; date: string; region: string } {
  const parts = value.split('/');
  const [accessKeyId, date, credRegion, service, terminal] = parts;
  if (parts.length !== 5 || parts.some((p) => p === '') || !/^\d{8}$/.test(date ?? '')) {
    throw invalidCredential(
      'the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
    );
  }
  if (region.strict && credRegion !== region.name) {
    throw invalidCredential(`the region '${credRegion}' is wrong; expecting '${region.name}'`, { Region: region.name });
  }
  if (service !== 's3') throw invalidCredential(`incorrect service "${service}". This endpoint belongs to "s3".`);
  if (terminal !== 'aws4_request')
    throw invalidCredential(`incorrect terminal "${terminal}". This endpoint uses "aws4_request".`);
  return { accessKeyId: accessKeyId as string, date: date as string, region: credRegion as string };
}

/**
 * Authenticates a form from its fields. No signature fields and no policy: anonymous (the bucket policy decides).
 * Throws InvalidRequest (SigV2 fields), AccessDenied (a policy without a signature), InvalidArgument (a signature
 * field or the policy missing, a malformed credential or date, another algorithm), InvalidAccessKeyId,
 * SignatureDoesNotMatch, and InvalidPolicyDocument for a signed policy that does not parse.
 */
export function authenticateForm(
  fields: FormFields,
  opts: { lookup: SecretLookup; region: RegionRule; sigv2: boolean },
): FormAuth {
  if (fields.has('awsaccesskeyid') || fields.has('signature')) {
    if (opts.sigv2) return authenticateFormV2(fields, opts.lookup);
    throw new AppError('InvalidRequest', {
      message: 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.',
    });
  }
  const policyText = fields.get('policy');
  if (!SIGNATURE_FIELDS.some(([name]) => fields.has(name))) {
    if (policyText !== undefined)
      throw new AppError('AccessDenied', { message: 'A POST policy needs a signature (x-amz-signature).' });
    return { kind: 'anonymous' };
  }
  for (const [name, display] of SIGNATURE_FIELDS) if (!fields.has(name)) throw missingField(display);
  if (policyText === undefined) throw missingField('Policy');
  const algorithm = fields.get('x-amz-algorithm') ?? '';
  if (algorithm !== ALGORITHM) {
    throw new AppError('InvalidArgument', {
      message: `X-Amz-Algorithm only supports "${ALGORITHM}"`,
      details: { ArgumentName: 'x-amz-algorithm', ArgumentValue: algorithm },
    });
  }
  const { accessKeyId, date, region } = parseCredential(fields.get('x-amz-credential') ?? '', opts.region);
  const amzDate = fields.get('x-amz-date') ?? '';
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined) {
    throw new AppError('InvalidArgument', {
      message: "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"",
      details: { ArgumentName: 'x-amz-date', ArgumentValue: amzDate },
    });
  }
  if (amzDate.slice(0, 8) !== date) {
    throw invalidCredential(
      `Invalid credential date "${date}". This date is not the same as X-Amz-Date: "${amzDate.slice(0, 8)}".`,
    );
  }
  const secret = opts.lookup(accessKeyId);
  if (secret === undefined) throw new AppError('InvalidAccessKeyId', { details: { AWSAccessKeyId: accessKeyId } });
  // The string to sign of a POST is the base64 policy itself, exactly as sent.
  const provided = fields.get('x-amz-signature') ?? '';
  if (
    !signatureMatches(
      signatureBytes(deriveSigningKey(secret, { date: date, region: region, service: 's3' }), policyText),
      provided,
    )
  ) {
    throw new AppError('SignatureDoesNotMatch', {
      details: { AWSAccessKeyId: accessKeyId, StringToSign: policyText, SignatureProvided: provided },
    });
  }
  return { kind: 'signed', scheme: 'sigv4', accessKeyId, policy: decodePostPolicy(policyText), signedAt };
}

/** A SigV2 form: AWSAccessKeyId, policy, and signature = base64(HMAC-SHA1(secret, policy as sent)). */
function authenticateFormV2(fields: FormFields, lookup: SecretLookup): FormAuth {
  const accessKeyId = fields.get('awsaccesskeyid');
  const provided = fields.get('signature');
  const policyText = fields.get('policy');
  if (accessKeyId === undefined) throw missingField('AWSAccessKeyId');
  if (provided === undefined) throw missingField('Signature');
  if (policyText === undefined) throw missingField('Policy');
  const secret = lookup(accessKeyId);
  if (secret === undefined) throw new AppError('InvalidAccessKeyId', { details: { AWSAccessKeyId: accessKeyId } });
  if (!signatureV2Matches(signatureV2(secret, policyText), provided)) {
    throw new AppError('SignatureDoesNotMatch', {
      details: { AWSAccessKeyId: accessKeyId, StringToSign: policyText, SignatureProvided: provided },
    });
  }
  return { kind: 'signed', scheme: 'sigv2', accessKeyId, policy: decodePostPolicy(policyText), signedAt: undefined };
}
