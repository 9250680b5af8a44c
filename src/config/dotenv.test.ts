// parseDotenv / withDotenv / formatDotenv: the .env file `store init` writes and `store serve` reads.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDotenv, parseDotenv, withDotenv } from './dotenv.js';

const HASH = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b/dWRWJTmaa';

describe('parseDotenv', () => {
  it('reads KEY=value lines, skipping comments, blank lines and junk', () => {
    const text = [
      '# a comment',
      '',
      '  PORT=9000  ',
      'export HOST=127.0.0.1',
      'not a pair',
      '9BAD=x',
      'EMPTY=',
      'A = spaced ',
    ].join('\n');
    expect(parseDotenv(text)).toEqual({ PORT: '9000', HOST: '127.0.0.1', EMPTY: '', A: 'spaced' });
  });

  it('handles CRLF line endings', () => {
    expect(parseDotenv('A=1\r\nB="two"\r\n')).toEqual({ A: '1', B: 'two' });
  });

  it('keeps `$`, `\\` and `#` literally inside single quotes', () => {
    expect(parseDotenv(`ADMIN_PASSWORD_HASH='${HASH}'`)['ADMIN_PASSWORD_HASH']).toBe(HASH);
    expect(parseDotenv(`X='a$HOME\\n#b'`)['X']).toBe('a$HOME\\n#b');
  });

  it('unescapes \\n, \\" and \\\\ inside double quotes in one pass', () => {
    expect(parseDotenv('X="line1\\nline2"')['X']).toBe('line1\nline2');
    expect(parseDotenv('X="say \\"hi\\""')['X']).toBe('say "hi"');
    // `\\n` is a backslash followed by n, not a backslash and a newline
    expect(parseDotenv('X="a\\\\nb"')['X']).toBe('a\\nb');
  });

  it('strips a comment after a value, quoted or not, but keeps # inside a word', () => {
    expect(parseDotenv("A='quoted' # trailing comment")['A']).toBe('quoted');
    expect(parseDotenv('B="dq"   # comment')['B']).toBe('dq');
    expect(parseDotenv('C=plain # comment')['C']).toBe('plain');
    expect(parseDotenv('D=abc#def')['D']).toBe('abc#def');
  });

  it('keeps = signs inside the value and the last duplicate wins', () => {
    expect(parseDotenv('K=a=b=c\nK=second')).toEqual({ K: 'second' });
    expect(parseDotenv('B64=AAAA==')['B64']).toBe('AAAA==');
  });
});

describe('formatDotenv', () => {
  it('round-trips through parseDotenv, including $, # and spaces', () => {
    const pairs = { ADMIN_PASSWORD_HASH: HASH, A: 'has # hash', B: 'with space', C: '' };
    const text = formatDotenv(pairs, '# header');
    expect(text.startsWith('# header\n')).toBe(true);
    expect(parseDotenv(text)).toEqual(pairs);
  });

  it('refuses a value single quotes cannot carry', () => {
    expect(() => formatDotenv({ A: "it's" }, '#')).toThrow(RangeError);
    expect(() => formatDotenv({ A: 'two\nlines' }, '#')).toThrow(RangeError);
  });
});

describe('withDotenv', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const envFile = (text: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-test-'));
    dirs.push(dir);
    writeFileSync(join(dir, '.env'), text);
    return join(dir, '.env');
  };

  it('fills keys from the file under the environment: the environment wins', () => {
    const file = envFile("PORT=9000\nHOST='0.0.0.0'\nLOG_LEVEL=debug\n");
    expect(withDotenv({ PORT: '8080', OTHER: 'x' }, file)).toEqual({
      PORT: '8080',
      HOST: '0.0.0.0',
      LOG_LEVEL: 'debug',
      OTHER: 'x',
    });
  });

  it('returns the environment unchanged when the file does not exist', () => {
    const env = { A: '1' };
    expect(withDotenv(env, join(tmpdir(), `no-such-dir-${process.pid}`, '.env'))).toEqual({ A: '1' });
  });

  it('throws for a path that exists but cannot be read as a file', () => {
    const file = envFile('A=1');
    expect(() => withDotenv({}, join(file, '..'))).toThrow();
  });
});
