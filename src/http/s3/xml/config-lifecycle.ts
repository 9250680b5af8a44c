// The LifecycleConfiguration document of Put/GetBucketLifecycleConfiguration, both forms: a rule-level
// Prefix (V1) and a Filter with one predicate or an And of two or more (V2).

import { parseIso8601 } from '../../../core/iso8601.js';
import {
  type LifecycleConfiguration,
  type LifecycleExpiration,
  type LifecycleFilter,
  type LifecycleRule,
  type LifecycleTransition,
  type NoncurrentVersionTransition,
  parseLifecycleStorageClass,
  validateLifecycleConfiguration,
  withRuleIds,
} from '../../../core/lifecycle.js';
import type { Tag } from '../../../core/tagging.js';
import {
  configRoot,
  containerChildren,
  optionalBoolean,
  optionalChild,
  optionalInt,
  optionalLong,
  requiredEnum,
  requiredInt,
} from './config-xml.js';
import { el, openRoot, optEl } from './escape.js';
import { type XmlElement, malformedXml, optionalLeaf, requiredLeaf } from './reader.js';

/**
 * Parses a PutBucketLifecycleConfiguration body, gives rules without an ID one (withRuleIds) and
 * validates it (validateLifecycleConfiguration, whose codes it throws). Schema faults are AppError
 * MalformedXML: a Filter with two predicates outside an And, an And with fewer than two, a repeated
 * single element, a non-integer number, a Date that is not ISO 8601. An empty body is
 * MissingRequestBodyError.
 */
export function parseLifecycleConfiguration(body: Uint8Array | string): LifecycleConfiguration {
  const root = configRoot(body, 'LifecycleConfiguration');
  const config: LifecycleConfiguration = { rules: containerChildren(root, 'Rule').map(parseRule) };
  validateLifecycleConfiguration(config);
  return withRuleIds(config);
}

function parseRule(node: XmlElement): LifecycleRule {
  const id = optionalLeaf(node, 'ID');
  const rule: LifecycleRule = { status: requiredEnum(node, 'Status', ['Enabled', 'Disabled'] as const) };
  if (id !== undefined && id !== '') rule.id = id;
  const prefix = optionalLeaf(node, 'Prefix');
  if (prefix !== undefined) rule.prefix = prefix;
  const filter = optionalChild(node, 'Filter');
  if (filter !== undefined) rule.filter = parseFilter(filter);
  const expiration = optionalChild(node, 'Expiration');
  if (expiration !== undefined) rule.expiration = parseExpiration(expiration);
  const transitions = containerChildren(node, 'Transition').map(parseTransition);
  if (transitions.length > 0) rule.transitions = transitions;
  const nve = optionalChild(node, 'NoncurrentVersionExpiration');
  if (nve !== undefined) {
    rule.noncurrentVersionExpiration = { noncurrentDays: requiredInt(nve, 'NoncurrentDays') };
    const newer = optionalInt(nve, 'NewerNoncurrentVersions');
    if (newer !== undefined) rule.noncurrentVersionExpiration.newerNoncurrentVersions = newer;
  }
  const nvts = containerChildren(node, 'NoncurrentVersionTransition').map(parseNoncurrentTransition);
  if (nvts.length > 0) rule.noncurrentVersionTransitions = nvts;
  const abort = optionalChild(node, 'AbortIncompleteMultipartUpload');
  if (abort !== undefined) {
    rule.abortIncompleteMultipartUpload = { daysAfterInitiation: requiredInt(abort, 'DaysAfterInitiation') };
  }
  return rule;
}

/** The predicates of a Filter or an And, and how many there were. */
function readPredicates(node: XmlElement): { filter: LifecycleFilter; count: number } {
  const filter: LifecycleFilter = {};
  let count = 0;
  const prefix = optionalLeaf(node, 'Prefix');
  if (prefix !== undefined) {
    filter.prefix = prefix;
    count++;
  }
  const tags = containerChildren(node, 'Tag').map(
    // The user guide lets a filter's Tag leave out Value: it then matches the key with an empty value.
    (tag): Tag => ({ key: requiredLeaf(tag, 'Key'), value: optionalLeaf(tag, 'Value') ?? '' }),
  );
  if (tags.length > 0) filter.tags = tags;
  count += tags.length;
  const gt = optionalLong(node, 'ObjectSizeGreaterThan');
  if (gt !== undefined) {
    filter.objectSizeGreaterThan = gt;
    count++;
  }
  const lt = optionalLong(node, 'ObjectSizeLessThan');
  if (lt !== undefined) {
    filter.objectSizeLessThan = lt;
    count++;
  }
  return { filter, count };
}

function parseFilter(node: XmlElement): LifecycleFilter {
  const direct = readPredicates(node);
  const and = optionalChild(node, 'And');
  if (and === undefined) {
    // "A Filter must have exactly one of Prefix, Tag, ObjectSizeGreaterThan, ObjectSizeLessThan, or And" (or none).
    if (direct.count > 1) throw malformedXml();
    return direct.filter;
  }
  const inner = readPredicates(and);
  if (direct.count > 0 || inner.count < 2) throw malformedXml();
  return inner.filter;
}

function parseDate(node: XmlElement): string | undefined {
  const text = optionalLeaf(node, 'Date');
  if (text === undefined) return undefined;
  const date = parseIso8601(text);
  if (date === undefined) throw malformedXml();
  return date.toISOString();
}

function parseExpiration(node: XmlElement): LifecycleExpiration {
  const out: LifecycleExpiration = {};
  const days = optionalInt(node, 'Days');
  const date = parseDate(node);
  const marker = optionalBoolean(node, 'ExpiredObjectDeleteMarker');
  if (days !== undefined) out.days = days;
  if (date !== undefined) out.date = date;
  if (marker !== undefined) out.expiredObjectDeleteMarker = marker;
  return out;
}

function parseTransition(node: XmlElement): LifecycleTransition {
  const out: LifecycleTransition = { storageClass: parseLifecycleStorageClass(requiredLeaf(node, 'StorageClass')) };
  const days = optionalInt(node, 'Days');
  const date = parseDate(node);
  if (days !== undefined) out.days = days;
  if (date !== undefined) out.date = date;
  return out;
}

function parseNoncurrentTransition(node: XmlElement): NoncurrentVersionTransition {
  const out: NoncurrentVersionTransition = {
    noncurrentDays: requiredInt(node, 'NoncurrentDays'),
    storageClass: parseLifecycleStorageClass(requiredLeaf(node, 'StorageClass')),
  };
  const newer = optionalInt(node, 'NewerNoncurrentVersions');
  if (newer !== undefined) out.newerNoncurrentVersions = newer;
  return out;
}

/** GetBucketLifecycleConfiguration's body: each rule as ID, Filter or Prefix, Status, then its actions. */
export function buildLifecycleConfiguration(config: LifecycleConfiguration): string {
  let out = openRoot('LifecycleConfiguration');
  for (const rule of config.rules) {
    out += `<Rule>${optEl('ID', rule.id)}`;
    out += rule.filter !== undefined ? buildFilter(rule.filter) : optEl('Prefix', rule.prefix);
    out += el('Status', rule.status);
    const exp = rule.expiration;
    if (exp !== undefined) {
      const marker = optEl('ExpiredObjectDeleteMarker', exp.expiredObjectDeleteMarker);
      out += wrap('Expiration', `${optEl('Days', exp.days)}${optEl('Date', exp.date)}${marker}`);
    }
    for (const t of rule.transitions ?? []) {
      out += wrap(
        'Transition',
        `${optEl('Days', t.days)}${optEl('Date', t.date)}${el('StorageClass', t.storageClass)}`,
      );
    }
    for (const t of rule.noncurrentVersionTransitions ?? []) {
      const newer = optEl('NewerNoncurrentVersions', t.newerNoncurrentVersions);
      out += wrap(
        'NoncurrentVersionTransition',
        `${el('NoncurrentDays', t.noncurrentDays)}${newer}${el('StorageClass', t.storageClass)}`,
      );
    }
    const nve = rule.noncurrentVersionExpiration;
    if (nve !== undefined) {
      const newer = optEl('NewerNoncurrentVersions', nve.newerNoncurrentVersions);
      out += wrap('NoncurrentVersionExpiration', `${el('NoncurrentDays', nve.noncurrentDays)}${newer}`);
    }
    const abort = rule.abortIncompleteMultipartUpload;
    if (abort !== undefined) {
      out += wrap('AbortIncompleteMultipartUpload', el('DaysAfterInitiation', abort.daysAfterInitiation));
    }
    out += '</Rule>';
  }
  return `${out}</LifecycleConfiguration>`;
}

/** `<name>inner</name>` for already-escaped inner markup. */
function wrap(name: string, inner: string): string {
  return `<${name}>${inner}</${name}>`;
}

function buildFilter(filter: LifecycleFilter): string {
  const parts: string[] = [];
  if (filter.prefix !== undefined) parts.push(el('Prefix', filter.prefix));
  for (const tag of filter.tags ?? []) parts.push(`<Tag>${el('Key', tag.key)}${el('Value', tag.value)}</Tag>`);
  if (filter.objectSizeGreaterThan !== undefined) parts.push(el('ObjectSizeGreaterThan', filter.objectSizeGreaterThan));
  if (filter.objectSizeLessThan !== undefined) parts.push(el('ObjectSizeLessThan', filter.objectSizeLessThan));
  const inner = parts.length > 1 ? `<And>${parts.join('')}</And>` : parts.join('');
  return `<Filter>${inner}</Filter>`;
}
