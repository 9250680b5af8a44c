// The VersioningConfiguration document of Put/GetBucketVersioning.

import { AppError } from '../../../core/errors.js';
import {
  type VersioningConfiguration,
  type VersioningState,
  validateVersioningConfiguration,
} from '../../../core/versioning.js';
import { configRoot } from './config-xml.js';
import { el, openRoot } from './escape.js';
import { malformedXml, optionalLeaf } from './reader.js';

/**
 * Parses a PutBucketVersioning body. Status must be Enabled or Suspended (anything else, or none,
 * is AppError MalformedXML, as S3 answers). MfaDelete Disabled is accepted and ignored; Enabled is
 * AppError NotImplemented, since Store has no MFA devices; other values are MalformedXML.
 */
export function parseVersioningConfiguration(body: Uint8Array | string): VersioningConfiguration {
  const root = configRoot(body, 'VersioningConfiguration');
  const status = optionalLeaf(root, 'Status');
  const mfaDelete = optionalLeaf(root, 'MfaDelete');
  if (mfaDelete !== undefined && mfaDelete !== 'Disabled') {
    if (mfaDelete === 'Enabled') {
      throw new AppError('NotImplemented', { message: 'MFA delete is not supported by this server.' });
    }
    throw malformedXml();
  }
  if (status !== 'Enabled' && status !== 'Suspended') throw malformedXml();
  const config: VersioningConfiguration = { status };
  validateVersioningConfiguration(config);
  return config;
}

/**
 * GetBucketVersioning's body: `<Status>` once versioning was ever enabled; an empty
 * `<VersioningConfiguration/>` for a bucket never versioned, as S3 answers.
 */
export function buildVersioningConfiguration(state: VersioningState): string {
  const status = state === 'Unversioned' ? '' : el('Status', state);
  return `${openRoot('VersioningConfiguration')}${status}</VersioningConfiguration>`;
}
