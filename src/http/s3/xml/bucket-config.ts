// The configuration documents in one import: parsers (request body -> core model, validated) and
// builders (model -> response body) for tagging, versioning, object lock, lifecycle, CORS and
// default encryption. Each builder's output parses back to the same model.

export { parseTagging, buildTagging } from './config-tagging.js';
export { parseVersioningConfiguration, buildVersioningConfiguration } from './config-versioning.js';
export {
  parseObjectLockConfiguration,
  buildObjectLockConfiguration,
  parseRetention,
  buildRetention,
  parseLegalHold,
  buildLegalHold,
} from './config-object-lock.js';
export { parseLifecycleConfiguration, buildLifecycleConfiguration } from './config-lifecycle.js';
export { parseCorsConfiguration, buildCorsConfiguration } from './config-cors.js';
export { parseBucketEncryption, buildBucketEncryption } from './config-encryption.js';
