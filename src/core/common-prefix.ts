// Rolling keys up into common prefixes at a delimiter (ListObjects, ListObjectVersions, ListMultipartUploads).

/** The largest code point: a key P + U+10FFFF sorts after every key that starts with P and a smaller character. */
export const MAX_CHAR = String.fromCodePoint(0x10ffff);

/** The common prefix `key` rolls up into (through the first delimiter after `prefix`), or undefined. */
export function rollUp(key: string, prefix: string, delimiter: string): string | undefined {
  const at = key.indexOf(delimiter, prefix.length);
  return at < 0 ? undefined : key.slice(0, at + delimiter.length);
}
