// Headers that keep stored objects from running script in Store's origin, which the S3 plane shares with the admin
// console when one listener serves both (ARCHITECTURE "Known pitfalls": stored XSS). The object keeps its stored
// Content-Type, as S3 serves it; what changes is how a browser may treat it (docs/decisions.md, "Object bytes in the
// console's origin").

/**
 * Sent with every response that carries an object's bytes (GET and HEAD, signed, presigned or anonymous, a tiered
 * object read through), whatever its Content-Type: the defence must not depend on parsing a type, because browsers
 * and Store disagree on malformed ones (`image/png;,text/html` renders as HTML in Chromium). `nosniff` stops a type
 * being guessed up into HTML; `sandbox` makes any document the bytes become run no script and get an opaque origin,
 * so it can read no cookie of this origin and call no admin route with one. CSP applies to documents only: fetch(),
 * <img>, <video> and S3 clients are not affected. The cost: Chromium's PDF viewer does not run in a sandboxed
 * document, so a PDF opened from a share link downloads instead of displaying.
 */
export const OBJECT_SAFETY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': 'sandbox',
});
