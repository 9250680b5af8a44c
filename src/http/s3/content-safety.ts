// Headers that keep stored objects from running script in Store's origin, which the S3 plane shares with the admin
// console when one listener serves both (ARCHITECTURE "Known pitfalls": stored XSS). The object keeps its stored
// Content-Type, as S3 serves it; what changes is how a browser may treat it (docs/decisions.md, "Object bytes in the
// console's origin").

/**
 * Media types a browser renders with no script of the object's own: raster images, audio, video and PDF (whose
 * viewers run in their own origin). Everything else (HTML, SVG, XML, unknown or missing types) could become a
 * document that runs script, or be sniffed into one.
 */
const PASSIVE = /^(?:image\/(?!svg)[a-z0-9.+-]+|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|application\/pdf)$/;

/** The media type without parameters, lower-cased (`Text/HTML; charset=utf-8` -> `text/html`). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/**
 * Extra headers for an object served as `contentType` (the final value, response-content-type included):
 * always `X-Content-Type-Options: nosniff`, so no type is guessed up into HTML; and, unless the type is passive,
 * `Content-Security-Policy: sandbox`, under which a document opened from a share link still displays but runs no
 * script and gets an opaque origin, so it can read no cookie of this origin and call no admin route with one.
 * CSP applies to documents only: fetch(), <img> and S3 clients are not affected.
 */
export function contentSafetyHeaders(contentType: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff' };
  if (!PASSIVE.test(mediaType(contentType))) headers['Content-Security-Policy'] = 'sandbox';
  return headers;
}
