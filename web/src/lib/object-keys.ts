// Object keys and prefixes as the browser shows them: folders are prefixes ending in '/', breadcrumbs, the name
// of an entry inside its folder, and the key an uploaded file gets. Pure functions (unit-tested in Node).

export interface Crumb {
  label: string;
  /** The prefix this crumb opens ('' is the bucket's root). */
  prefix: string;
}

/** The folders of a prefix, outermost first: 'a/b/' -> [a (a/), b (a/b/)]. */
export function breadcrumbs(prefix: string): Crumb[] {
  const crumbs: Crumb[] = [];
  let at = 0;
  while (at < prefix.length) {
    const slash = prefix.indexOf('/', at);
    const end = slash === -1 ? prefix.length : slash + 1;
    crumbs.push({ label: prefix.slice(at, slash === -1 ? end : slash) || '/', prefix: prefix.slice(0, end) });
    at = end;
  }
  return crumbs;
}

/** The prefix one folder up: 'a/b/' -> 'a/', 'a/' -> ''. */
export function parentPrefix(prefix: string): string {
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  const slash = trimmed.lastIndexOf('/');
  return slash === -1 ? '' : trimmed.slice(0, slash + 1);
}

/** An entry's name inside the folder being shown: the key (or prefix) without the folder's prefix. */
export function entryName(keyOrPrefix: string, prefix: string): string {
  return keyOrPrefix.startsWith(prefix) ? keyOrPrefix.slice(prefix.length) : keyOrPrefix;
}

/** The last segment of a key, for file names: 'a/b/c.txt' -> 'c.txt'; 'a/b/' -> 'b'. */
export function baseName(key: string): string {
  const trimmed = key.endsWith('/') ? key.slice(0, -1) : key;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || 'download';
}

/**
 * The key a file uploaded into `prefix` gets: its path relative to what was dropped (a folder's files keep their
 * sub-folders), with backslashes turned into slashes and leading './' or '/' removed.
 */
export function uploadKey(prefix: string, relativePath: string): string {
  const clean = relativePath.replace(/\\/g, '/').replace(/^(\.\/|\/)+/, '');
  return `${prefix}${clean}`;
}

/** Bytes of a key in UTF-8 (S3 allows at most 1024). */
export function keyBytes(key: string): number {
  return new TextEncoder().encode(key).length;
}

/** Why this is not a usable object key, or undefined if it is. */
export function keyProblem(key: string): string | undefined {
  if (key === '') return 'A key cannot be empty.';
  if (keyBytes(key) > 1024) return 'A key is at most 1024 bytes of UTF-8.';
  return undefined;
}

/** A new folder's path as typed ('a/b', '/a/b/'): its segments joined by '/', without slashes at the ends. */
export function folderPath(name: string): string {
  return name.trim().replace(/^\/+|\/+$/g, '');
}

/** Why this is not a usable folder name or path ('a/b' makes both folders), or undefined. */
export function folderNameProblem(name: string): string | undefined {
  const path = folderPath(name);
  if (path === '') return 'Enter a folder name.';
  const segments = path.split('/');
  if (segments.some((s) => s === '')) return 'A folder path cannot have an empty folder ("//").';
  if (segments.some((s) => s === '.' || s === '..')) return 'A folder cannot be named "." or "..".';
  if (keyBytes(`${path}/`) > 1024) return 'A folder path is at most 1024 bytes of UTF-8.';
  return undefined;
}

/** Whether a listed key is the empty marker object of the folder being shown ("photos/" inside photos/). */
export function isFolderMarker(key: string, prefix: string): boolean {
  return prefix !== '' && key === prefix;
}

/** S3 bucket naming rules (the server checks them too): why `name` is not a valid bucket name, or undefined. */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return 'Between 3 and 63 characters.';
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name))
    return 'Lowercase letters, digits, dots and hyphens; start and end with a letter or digit.';
  if (name.includes('..')) return 'No two adjacent dots.';
  if (/^\d+\.\d+\.\d+\.\d+$/.test(name)) return 'Not formatted like an IP address.';
  if (name.startsWith('xn--') || name.endsWith('-s3alias') || name.endsWith('--ol-s3'))
    return 'That prefix or suffix is reserved.';
  return undefined;
}

/** A version id short enough for a list and still telling versions apart: UUID v7 ids share their leading
 * timestamp digits, so the random tail is what is shown ('…4e93f9e90427'). */
export function shortVersionId(id: string): string {
  return id.length > 14 ? `…${id.slice(-12)}` : id;
}
