// What HTTP/1.1 lets a header carry (RFC 9110 5.5 and 5.6.2): the check applied to every piece of text Store will
// later send as a header (an object's Content-Type, Cache-Control, x-amz-meta-*, response-* overrides) when that
// text did not itself arrive as a header. Node refuses to send anything else, which made such an object unreadable.

const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NON_ASCII = /[^\x00-\x7f]/;

/** True when `value` can be sent as a header value: tab, printable ASCII and bytes 0x80-0xFF, no CR, LF or NUL. */
export function isHeaderValue(value: string): boolean {
  return HEADER_VALUE.test(value);
}

/** True when `name` is an HTTP token (what follows `x-amz-meta-` must be one). */
export function isHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

/**
 * Text from a form or a query string (decoded as UTF-8) in the form a header carrying its UTF-8 bytes reaches
 * Store: one character per byte, as Node decodes headers, so it goes back out as the same UTF-8 bytes. Lossless;
 * ASCII is unchanged.
 */
export function asHeaderBytes(text: string): string {
  return NON_ASCII.test(text) ? Buffer.from(text, 'utf8').toString('latin1') : text;
}

const UTF8_STRICT = new TextDecoder('utf-8', { fatal: true });

/**
 * Header-form text (one character per byte, as Node decodes headers and as Store stores them) as the Unicode text its
 * bytes spell in UTF-8, for places that show text rather than send it as a header (the admin API's JSON). Bytes that
 * are not valid UTF-8 are shown one character per byte, as they are. The inverse of asHeaderBytes.
 */
export function fromHeaderBytes(value: string): string {
  if (!NON_ASCII.test(value)) return value;
  try {
    return UTF8_STRICT.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}
