// Safe reading of S3 request bodies into a small element tree. Refuses DOCTYPE (no XXE, no entity
// expansion bombs), undeclared entities, characters XML 1.0 forbids, invalid UTF-8 and multiple roots.
// The caller passes a body it has already size-limited.

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError } from '../../../core/errors.js';

export interface XmlElement {
  /** Local name (namespace prefixes removed). */
  name: string;
  children: XmlElement[];
  /** Character data of this element with entities decoded and CDATA included, in document order. */
  text: string;
}

export function malformedXml(cause?: unknown): AppError {
  return new AppError('MalformedXML', cause === undefined ? {} : { cause });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  // Entities are decoded by decodeText below, strictly: only the five XML ones and character references.
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  jPath: false, // no callbacks use it; building path strings per tag halves the parse speed
});

// XML 1.0 Char excludes these; lone surrogates cannot survive the fatal UTF-8 decode.
const FORBIDDEN_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/**
 * Parses `body` into its root element, or undefined when the body is empty or only whitespace
 * (the caller decides whether that is allowed). Throws AppError MalformedXML for anything that is not
 * one well-formed XML 1.0 document without a DOCTYPE.
 */
export function readXml(body: Uint8Array | string): XmlElement | undefined {
  let text: string;
  try {
    text = typeof body === 'string' ? body : utf8.decode(body); // also drops a leading BOM
  } catch (err) {
    throw malformedXml(err);
  }
  if (text.trim() === '') return undefined;
  if (FORBIDDEN_CHAR.test(text) || hasMarkupDeclaration(text)) throw malformedXml();
  if (XMLValidator.validate(text) !== true) throw malformedXml();
  let nodes: unknown;
  try {
    nodes = parser.parse(text);
  } catch (err) {
    throw malformedXml(err); // e.g. an element named __proto__
  }
  const root = toElements(nodes);
  // The validator tolerates a second root element and text after the root; XML does not.
  if (root.elements.length !== 1 || root.text.trim() !== '') throw malformedXml();
  return root.elements[0];
}

/** True when the document has `<!` outside comments and CDATA: a DOCTYPE, ENTITY or other declaration. */
function hasMarkupDeclaration(text: string): boolean {
  let i = text.indexOf('<!');
  while (i !== -1) {
    let end: number;
    if (text.startsWith('<!--', i)) end = text.indexOf('-->', i + 4);
    else if (text.startsWith('<![CDATA[', i)) end = text.indexOf(']]>', i + 9);
    else return true;
    if (end === -1) return true;
    i = text.indexOf('<!', end);
  }
  return false;
}

type OrderedNode = Record<string, unknown>;

function toElements(nodes: unknown): { elements: XmlElement[]; text: string } {
  const elements: XmlElement[] = [];
  let text = '';
  if (!Array.isArray(nodes)) throw malformedXml();
  for (const node of nodes as OrderedNode[]) {
    for (const [key, value] of Object.entries(node)) {
      if (key === ':@') continue;
      if (key === '#text') {
        text += decodeText(String(value));
      } else if (key === '#cdata') {
        text += cdataText(value);
      } else {
        const inner = toElements(value);
        elements.push({ name: key, children: inner.elements, text: inner.text });
      }
    }
  }
  return { elements, text };
}

function cdataText(value: unknown): string {
  if (!Array.isArray(value)) return '';
  let out = '';
  for (const part of value as OrderedNode[]) {
    const t = part['#text'];
    if (t !== undefined) out += String(t);
  }
  return out;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five predefined entities and character references; anything else is malformed. */
function decodeText(raw: string): string {
  if (!raw.includes('&')) return raw;
  let out = '';
  let i = 0;
  for (;;) {
    const amp = raw.indexOf('&', i);
    if (amp === -1) break;
    const semi = raw.indexOf(';', amp);
    if (semi === -1) throw malformedXml();
    out += raw.slice(i, amp) + decodeEntity(raw.slice(amp + 1, semi));
    i = semi + 1;
  }
  return out + raw.slice(i);
}

function decodeEntity(name: string): string {
  const named = NAMED_ENTITIES[name];
  if (named !== undefined) return named;
  let code = NaN;
  if (/^#x[0-9a-fA-F]{1,6}$/.test(name)) code = parseInt(name.slice(2), 16);
  else if (/^#[0-9]{1,7}$/.test(name)) code = parseInt(name.slice(1), 10);
  if (!isXmlChar(code)) throw malformedXml(); // includes &#x1; which S3 refuses in request bodies too
  return String.fromCodePoint(code);
}

function isXmlChar(c: number): boolean {
  return (
    c === 0x9 ||
    c === 0xa ||
    c === 0xd ||
    (c >= 0x20 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

// ---------------------------------------------------------------------------------------------------------
// Schema helpers for the request parsers. Unknown elements are ignored (newer SDKs add optional ones);
// known ones must appear the allowed number of times and hold the right kind of content.

export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}

/** The text of an optional leaf child that may appear at most once. */
export function optionalLeaf(el: XmlElement, name: string): string | undefined {
  const found = childrenNamed(el, name);
  if (found.length > 1) throw malformedXml();
  const child = found[0];
  if (child === undefined) return undefined;
  if (child.children.length > 0) throw malformedXml();
  return child.text;
}

/** The text of a required leaf child that must appear exactly once. */
export function requiredLeaf(el: XmlElement, name: string): string {
  const value = optionalLeaf(el, name);
  if (value === undefined) throw malformedXml();
  return value;
}

/** Refuses non-whitespace text mixed into an element that holds child elements. */
export function assertContainer(el: XmlElement): void {
  if (el.text.trim() !== '') throw malformedXml();
}
