// Strength rules for secrets read at boot (SPEC "Boot-time secret checks", ARCHITECTURE "Defaults for the spec's
// gaps").

/** Fragments that mark a value copied from documentation or a template rather than generated. */
const PLACEHOLDER_FRAGMENTS = [
  'changeme',
  'change-me',
  'change_me',
  'replaceme',
  'replace-me',
  'replace_me',
  'placeholder',
  'example',
  'secret',
  'password',
  'passw0rd',
  'default',
  'your-',
  'your_',
  'insecure',
  'todo',
  'xxxxxxxx',
  'letmein',
  'qwerty',
];

export const MIN_SECRET_LENGTH = 32;
const MIN_DISTINCT_CHARS = 8;
/** Shannon entropy per character below this is a repeated pattern, not a random secret (random base64 is ~5). */
const MIN_BITS_PER_CHAR = 3;

function bitsPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** True when the value contains a known placeholder fragment (case-insensitive). */
export function looksLikePlaceholder(value: string): boolean {
  const lower = value.toLowerCase();
  return PLACEHOLDER_FRAGMENTS.some((fragment) => lower.includes(fragment));
}

/**
 * Why a secret is weak, or undefined when it is strong. The reason never contains the value itself,
 * so it is safe to print at boot.
 */
export function weakSecretReason(value: string, minLength = MIN_SECRET_LENGTH): string | undefined {
  if (value.length < minLength) return `must be at least ${minLength} characters`;
  if (new Set(value).size === 1) return 'must not be a single repeated character';
  if (looksLikePlaceholder(value)) return 'must not be a known placeholder value; generate a random one';
  if (new Set(value).size < MIN_DISTINCT_CHARS || bitsPerChar(value) < MIN_BITS_PER_CHAR) {
    return 'has too little entropy; generate a random one (for example `openssl rand -base64 48`)';
  }
  return undefined;
}
