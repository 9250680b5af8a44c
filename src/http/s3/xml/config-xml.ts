// Shared reading helpers for the bucket and object configuration documents (tagging, versioning,
// object lock, lifecycle, CORS, encryption): the root, single children, and XML Schema number and
// boolean leaves. Every schema fault is AppError MalformedXML, as S3 answers it.

import { AppError } from '../../../core/errors.js';
import { type XmlElement, assertContainer, childrenNamed, malformedXml, optionalLeaf, readXml } from './reader.js';

/**
 * The root element of a configuration body, which must be named `name`. An empty body is AppError
 * MissingRequestBodyError (S3's answer to PutBucketCors without a body); anything else malformed is
 * MalformedXML.
 */
export function configRoot(body: Uint8Array | string, name: string): XmlElement {
  const root = readXml(body);
  if (root === undefined) throw new AppError('MissingRequestBodyError');
  if (root.name !== name) throw malformedXml();
  assertContainer(root);
  return root;
}

/** An optional child element that may appear at most once, holding elements (not text). */
export function optionalChild(el: XmlElement, name: string): XmlElement | undefined {
  const found = childrenNamed(el, name);
  if (found.length > 1) throw malformedXml();
  const child = found[0];
  if (child !== undefined) assertContainer(child);
  return child;
}

/** Every child element named `name`, each checked to hold only elements. */
export function containerChildren(el: XmlElement, name: string): XmlElement[] {
  const found = childrenNamed(el, name);
  for (const child of found) assertContainer(child);
  return found;
}

const INTEGER = /^[+-]?\d+$/;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** An optional xs:int leaf (optional sign, digits, surrounding white space collapsed). */
export function optionalInt(el: XmlElement, name: string): number | undefined {
  const text = optionalLeaf(el, name)?.trim();
  if (text === undefined) return undefined;
  if (!INTEGER.test(text)) throw malformedXml();
  const n = Number(text);
  if (n < INT32_MIN || n > INT32_MAX) throw malformedXml();
  return n;
}

/** A required xs:int leaf. */
export function requiredInt(el: XmlElement, name: string): number {
  const n = optionalInt(el, name);
  if (n === undefined) throw malformedXml();
  return n;
}

/**
 * An optional xs:long leaf. Values past 2^53 lose precision but stay far beyond every limit the
 * validators allow, so they are still refused, with the validator's code.
 */
export function optionalLong(el: XmlElement, name: string): number | undefined {
  const text = optionalLeaf(el, name)?.trim();
  if (text === undefined) return undefined;
  if (!INTEGER.test(text) || text.replace(/^[+-]/, '').replace(/^0+/, '').length > 19) throw malformedXml();
  return Number(text);
}

/** An optional xs:boolean leaf: true, false, 1 or 0. */
export function optionalBoolean(el: XmlElement, name: string): boolean | undefined {
  const text = optionalLeaf(el, name)?.trim();
  if (text === undefined) return undefined;
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw malformedXml();
}

/** An optional leaf whose value must be one of `allowed` (enumerations compare exactly). */
export function optionalEnum<T extends string>(el: XmlElement, name: string, allowed: readonly T[]): T | undefined {
  const text = optionalLeaf(el, name);
  if (text === undefined) return undefined;
  const found = allowed.find((a) => a === text);
  if (found === undefined) throw malformedXml();
  return found;
}

/** A required leaf whose value must be one of `allowed`. */
export function requiredEnum<T extends string>(el: XmlElement, name: string, allowed: readonly T[]): T {
  const value = optionalEnum(el, name, allowed);
  if (value === undefined) throw malformedXml();
  return value;
}
