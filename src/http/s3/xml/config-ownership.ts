// OwnershipControls and PublicAccessBlockConfiguration documents, both ways.

import { parseObjectOwnership, type ObjectOwnership } from '../../../core/acl/ownership.js';
import type { PublicAccessBlock } from '../../../core/acl/public-access-block.js';
import { AppError } from '../../../core/errors.js';
import { el, openRoot } from './escape.js';
import { childrenNamed, malformedXml, optionalLeaf, readXml } from './reader.js';

export function buildOwnershipControls(ownership: ObjectOwnership): string {
  return `${openRoot('OwnershipControls')}<Rule>${el('ObjectOwnership', ownership)}</Rule></OwnershipControls>`;
}

/** The one rule's setting. Throws MalformedXML unless the document holds exactly one Rule with an ObjectOwnership. */
export function parseOwnershipControls(body: Buffer): ObjectOwnership {
  const root = readXml(body);
  if (!root || root.name !== 'OwnershipControls') throw malformedXml();
  const rules = childrenNamed(root, 'Rule');
  if (rules.length !== 1) throw malformedXml();
  const value = optionalLeaf(rules[0]!, 'ObjectOwnership');
  if (value === undefined) throw malformedXml();
  try {
    return parseObjectOwnership(value.trim(), 'ObjectOwnership');
  } catch (err) {
    throw new AppError('MalformedXML', { cause: err });
  }
}

const FLAGS = [
  ['BlockPublicAcls', 'blockPublicAcls'],
  ['IgnorePublicAcls', 'ignorePublicAcls'],
  ['BlockPublicPolicy', 'blockPublicPolicy'],
  ['RestrictPublicBuckets', 'restrictPublicBuckets'],
] as const;

export function buildPublicAccessBlock(block: PublicAccessBlock): string {
  const flags = FLAGS.map(([name, field]) => el(name, block[field] ? 'true' : 'false')).join('');
  return `${openRoot('PublicAccessBlockConfiguration')}${flags}</PublicAccessBlockConfiguration>`;
}

/** Each flag false unless the document says true. Throws MalformedXML for another document or a non-boolean flag. */
export function parsePublicAccessBlock(body: Buffer): PublicAccessBlock {
  const root = readXml(body);
  if (!root || root.name !== 'PublicAccessBlockConfiguration') throw malformedXml();
  const out: Record<string, boolean> = {};
  for (const [name, field] of FLAGS) {
    const text = optionalLeaf(root, name)?.trim().toLowerCase();
    if (text !== undefined && text !== 'true' && text !== 'false') throw malformedXml();
    out[field] = text === 'true';
  }
  return out as unknown as PublicAccessBlock;
}
