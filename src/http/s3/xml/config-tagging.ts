// The Tagging document of Put/GetObjectTagging and Put/GetBucketTagging:
// <Tagging><TagSet><Tag><Key/><Value/></Tag>...</TagSet></Tagging>

import { type Tag, type TagSet, type TagTarget, validateTagSet } from '../../../core/tagging.js';
import { configRoot, containerChildren, optionalChild } from './config-xml.js';
import { malformedXml, requiredLeaf } from './reader.js';
import { el, openRoot } from './escape.js';

/**
 * Parses a Tagging body into a tag set and validates it for `target` (10 tags per object, 50 per
 * bucket). Keys and values are kept exactly as sent. Throws AppError MissingRequestBodyError,
 * MalformedXML (no TagSet, a Tag without Key or Value) or InvalidTag (validateTagSet).
 */
export function parseTagging(body: Uint8Array | string, target: TagTarget): TagSet {
  const root = configRoot(body, 'Tagging');
  const tagSet = optionalChild(root, 'TagSet');
  if (tagSet === undefined) throw malformedXml();
  const tags = containerChildren(tagSet, 'Tag').map((tag): Tag => ({
    key: requiredLeaf(tag, 'Key'),
    value: requiredLeaf(tag, 'Value'),
  }));
  validateTagSet(tags, target);
  return tags;
}

/** Get{Object,Bucket}Tagging's body, tags in stored order. */
export function buildTagging(tags: readonly Tag[]): string {
  let out = `${openRoot('Tagging')}<TagSet>`;
  for (const tag of tags) out += `<Tag>${el('Key', tag.key)}${el('Value', tag.value)}</Tag>`;
  return `${out}</TagSet></Tagging>`;
}
