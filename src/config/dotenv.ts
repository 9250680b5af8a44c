// A small .env reader: KEY=value lines, '#' comments, optional single or double quotes, `export ` prefix.
// Values from the real environment win over the file (SPEC: `store serve` loads .env, then the environment).

import { readFileSync } from 'node:fs';

/** Parses .env text into key/value pairs. Lines that are not KEY=value are ignored. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    out[match[1] as string] = parseValue(match[2] as string);
  }
  return out;
}

// A quoted value ends at its closing quote; a comment may follow it. Single quotes are literal (so `$` and `\`
// in an argon2 hash survive); double quotes understand \n, \" and \\ (read in one pass, so `\\n` is `\` + `n`).
const SINGLE_QUOTED = /^'([^']*)'\s*(?:#.*)?$/;
const DOUBLE_QUOTED = /^"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$/;

function parseValue(text: string): string {
  const single = SINGLE_QUOTED.exec(text);
  if (single) return single[1] as string;
  const double = DOUBLE_QUOTED.exec(text);
  if (double) return (double[1] as string).replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
  // Unquoted: a '#' after whitespace starts a comment; a '#' inside a word is part of the value.
  return text.replace(/\s+#.*$/, '').trim();
}

/** Reads `file` if it exists and returns env with the file's values filled in under the existing ones. */
export function withDotenv(env: NodeJS.ProcessEnv, file: string): NodeJS.ProcessEnv {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return env;
    throw err;
  }
  return { ...parseDotenv(text), ...env };
}

/**
 * Serialises pairs as .env text in single quotes, so `$`, `#` and spaces survive parseDotenv unchanged.
 * Throws RangeError for a value single quotes cannot carry (a `'` or a line break).
 */
export function formatDotenv(pairs: Record<string, string>, header: string): string {
  const lines = Object.entries(pairs).map(([k, v]) => {
    if (/['\r\n]/.test(v)) throw new RangeError(`${k} cannot be written to .env: it contains a quote or a line break`);
    return `${k}='${v}'`;
  });
  return `${header}\n${lines.join('\n')}\n`;
}
