// Zip entry names for object keys. A key may hold what a path in a zip must not: a leading "/", "." and ".."
// segments, empty segments ("a//b"), backslashes (a separator to Windows extractors) or a drive letter ("C:").
// Each such character or segment is percent-encoded, and "%" itself always is, so distinct keys always get distinct
// names and no name can climb out of the folder it is extracted into (docs/console.md, "Download as zip").

/** The entry name for a key relative to the downloaded folder; a name ending in "/" is a folder entry. */
export function zipEntryName(relativeKey: string): string {
  const segments = relativeKey.split('/');
  const last = segments.length - 1;
  return segments
    .map((segment, i) => {
      // The empty segment after a key's final "/" marks a folder; any other empty segment is encoded.
      if (segment === '') return i === last && i > 0 ? '' : '%2F';
      if (segment === '.') return '%2E';
      if (segment === '..') return '%2E%2E';
      let safe = segment.replace(/%/g, '%25').replace(/\\/g, '%5C');
      if (i === 0 && /^[a-zA-Z]:/.test(safe)) safe = `${safe[0]}%3A${safe.slice(2)}`;
      return safe;
    })
    .join('/');
}
