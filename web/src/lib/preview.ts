// What the console may preview, and how: images (SVG included, as a picture), audio, video and PDF from a blob: URL
// of an allow-listed type the console chooses, text as text. HTML is never rendered (it can carry script): it is shown
// as text. Pure (unit-tested in Node).

/** How an object is previewed; `tooLarge` is a rendered kind past its size limit. */
export type PreviewKind = 'image' | 'audio' | 'video' | 'pdf' | 'text' | 'tooLarge' | 'none';

/**
 * What the console shows in an element that never runs script, by media type, with the extensions that stand for each
 * type when an object was stored untyped, and the most it fetches (the bytes are gathered into a blob: URL whose type
 * the console chooses, never the stored one). SVG is an image: <img> renders it as a picture, with no script and no
 * external loads, never as a document in the console's origin. PDF is drawn into a canvas by pdf.js (scripting off).
 */
const RENDERED: Readonly<Record<'image' | 'audio' | 'video' | 'pdf', { types: Record<string, string>; max: number }>> =
  {
    image: {
      types: {
        'image/png': 'png',
        'image/jpeg': 'jpg jpeg',
        'image/gif': 'gif',
        'image/webp': 'webp',
        'image/avif': 'avif',
        'image/bmp': 'bmp',
        'image/x-icon': 'ico',
        'image/vnd.microsoft.icon': '',
        'image/svg+xml': 'svg',
      },
      max: 20 * 1024 * 1024,
    },
    audio: {
      types: {
        'audio/mpeg': 'mp3',
        'audio/ogg': 'ogg oga opus',
        'audio/wav': 'wav',
        'audio/x-wav': '',
        'audio/wave': '',
        'audio/webm': 'weba',
        'audio/flac': 'flac',
        'audio/aac': 'aac',
        'audio/mp4': 'm4a',
      },
      max: 100 * 1024 * 1024,
    },
    video: { types: { 'video/mp4': 'mp4 m4v', 'video/webm': 'webm', 'video/ogg': 'ogv' }, max: 100 * 1024 * 1024 },
    pdf: { types: { 'application/pdf': 'pdf' }, max: 50 * 1024 * 1024 },
  };
type RenderedKind = keyof typeof RENDERED;
const RENDERED_KINDS = Object.keys(RENDERED) as RenderedKind[];
export const IMAGE_PREVIEW_MAX = RENDERED.image.max;

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

const UNTYPED = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/** The kind and the type to give the blob, for an object the console renders (not text); undefined otherwise. */
export function renderedType(
  contentType: string | undefined,
  key: string,
): { kind: RenderedKind; type: string } | undefined {
  const type = mediaType(contentType);
  for (const kind of RENDERED_KINDS) if (type in RENDERED[kind].types) return { kind, type };
  if (!UNTYPED.has(type)) return undefined;
  const ext = extensionOf(key);
  if (ext === '') return undefined;
  for (const kind of RENDERED_KINDS) {
    for (const [known, extensions] of Object.entries(RENDERED[kind].types)) {
      if (extensions.split(' ').includes(ext)) return { kind, type: known };
    }
  }
  return undefined;
}

/** The largest object of a kind the console fetches to preview. */
export function previewMax(kind: RenderedKind): number {
  return RENDERED[kind].max;
}

/** How to preview an object: `tooLarge` when it is of a rendered kind but past that kind's size limit. */
export function previewKind(contentType: string | undefined, key: string, size: number): PreviewKind {
  const rendered = renderedType(contentType, key);
  if (rendered !== undefined) return size <= RENDERED[rendered.kind].max ? rendered.kind : 'tooLarge';
  const type = mediaType(contentType);
  if (
    type.startsWith('text/') ||
    /^application\/(json|xml|yaml|x-yaml|javascript|x-ndjson|toml|x-sh|sql)$/.test(type) ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  ) {
    return 'text';
  }
  if (UNTYPED.has(type) && TEXT_EXTENSIONS.has(extensionOf(key))) return 'text';
  return 'none';
}

/** Decodes a text preview; `truncated` when the object is longer than what was fetched. */
export function decodeTextPreview(bytes: Uint8Array, objectSize: number): { text: string; truncated: boolean } {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return { text, truncated: objectSize > bytes.length };
}
