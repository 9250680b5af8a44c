// What the console may preview, and how: raster images through a blob: URL of an allow-listed type, text as text.
// SVG and HTML are never rendered (they can carry script); they are shown as text. Pure (unit-tested in Node).

export type PreviewKind = 'image' | 'text' | 'none';

/** Raster image types a browser decodes without running anything. SVG is deliberately absent. */
const IMAGE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
]);
const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
};
const TEXT_EXTENSIONS = new Set([
  'txt',
  'md',
  'markdown',
  'csv',
  'tsv',
  'log',
  'json',
  'ndjson',
  'yaml',
  'yml',
  'toml',
  'ini',
  'conf',
  'cfg',
  'xml',
  'html',
  'htm',
  'svg',
  'js',
  'mjs',
  'ts',
  'tsx',
  'jsx',
  'css',
  'sh',
  'py',
  'rb',
  'go',
  'rs',
  'java',
  'c',
  'h',
  'cpp',
  'sql',
  'env',
  'properties',
]);
/** Images are fetched whole: up to this size. */
export const IMAGE_PREVIEW_MAX = 20 * 1024 * 1024;
/** Text is fetched with a Range: this many bytes from the start. */
export const TEXT_PREVIEW_BYTES = 256 * 1024;

function extensionOf(key: string): string {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The image type to give the blob for an object, if it is a previewable raster image; undefined otherwise. */
export function safeImageType(contentType: string | undefined, key: string): string | undefined {
  const type = mediaType(contentType);
  if (IMAGE_TYPES.has(type)) return type;
  if (type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream')
    return IMAGE_EXTENSIONS[extensionOf(key)];
  return undefined;
}

/** How to preview an object. */
export function previewKind(contentType: string | undefined, key: string, size: number): PreviewKind {
  if (safeImageType(contentType, key) !== undefined) return size <= IMAGE_PREVIEW_MAX ? 'image' : 'none';
  const type = mediaType(contentType);
  if (
    type.startsWith('text/') ||
    /^application\/(json|xml|yaml|x-yaml|javascript|x-ndjson|toml|x-sh|sql)$/.test(type) ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  ) {
    return 'text';
  }
  if ((type === '' || type === 'application/octet-stream') && TEXT_EXTENSIONS.has(extensionOf(key))) return 'text';
  return 'none';
}

/** Decodes a text preview; `truncated` when the object is longer than what was fetched. */
export function decodeTextPreview(bytes: Uint8Array, objectSize: number): { text: string; truncated: boolean } {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return { text, truncated: objectSize > bytes.length };
}
