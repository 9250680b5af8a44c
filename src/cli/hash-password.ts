// `store hash-password`: reads a password from stdin (not echoed on a terminal) and prints its argon2id hash.

import argon2 from 'argon2';

/** Reads one line from stdin; on a TTY, echo is turned off while typing. */
export async function readPassword(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const onData = (data: Buffer): void => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          finish();
          reject(new Error('cancelled'));
          return;
        }
        if (ch === '\u007f') value = value.slice(0, -1);
        else value += ch;
      }
    };
    const finish = (): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}

export async function hashPasswordCommand(): Promise<number> {
  const password = await readPassword('Password: ');
  if (password.length < 12) {
    process.stderr.write('refusing: the password must be at least 12 characters\n');
    return 2;
  }
  process.stdout.write(`${await argon2.hash(password, { type: argon2.argon2id })}\n`);
  return 0;
}
