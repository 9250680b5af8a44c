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
    const key = match[1] as string;
    let value = match[2] as string;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[key] = value;
  }
  return out;
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

/** Serialises pairs as .env text, quoting every value so `$`, `#` and spaces survive. */
export function formatDotenv(pairs: Record<string, string>, header: string): string {
  const lines = Object.entries(pairs).map(([k, v]) => `${k}='${v}'`);
  return `${header}\n${lines.join('\n')}\n`;
}
