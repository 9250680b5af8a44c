// The `store` command: serve (default), init [DIR], hash-password, backup, restore.

import { serve } from '../main.js';
import { BACKUP_USAGE, backupCommand } from './backup.js';
import { hashPasswordCommand } from './hash-password.js';
import { initDataDirectory } from './init.js';
import { versionLine } from './version.js';

const USAGE = `usage: store [command]

  serve [--init]   start the server (default); reads .env in the working directory, then the environment, then
                   DATA_DIR/secrets.env; --init generates the required secrets nobody gave into an empty DATA_DIR
                   and prints them once
  init [DIR]       create DIR/.env (default: the working directory) with strong generated secrets and a data directory
  hash-password    read a password from stdin and print its argon2id hash (for ADMIN_PASSWORD_HASH)
  backup           download a .zip snapshot from a running server (store backup --help)
  restore FILE     reset a running server (or one bucket) to a .zip snapshot (store restore --help)
  --version        print the version and the commit it was built from
`;

export async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve': {
      const unknown = rest.filter((arg) => arg !== '--init');
      if (unknown.length > 0) {
        process.stderr.write(`store serve: unknown option '${unknown[0]}'\n${USAGE}`);
        return 64;
      }
      return serve({ init: rest.includes('--init') });
    }
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`${versionLine()}\n`);
      return 0;
    case 'init': {
      const result = await initDataDirectory(rest[0] ?? '.');
      process.stdout.write(
        `Created ${result.envFile} (mode 0600) and the data directory ${result.dataDir}.\n\n` +
          `These are shown once; they are stored only as a hash (password) or in .env (keys):\n` +
          `  Admin console login:   ${result.adminUsername} / ${result.adminPassword}\n` +
          `  S3 access key id:      ${result.accessKeyId}\n` +
          `  S3 secret access key:  ${result.secretAccessKey}\n\n` +
          `Start the server in ${result.envFile.replace(/\/\.env$/, '')} with: store serve (or node bin/store.js serve from the Store checkout)\n`,
      );
      return 0;
    }
    case 'hash-password':
      return hashPasswordCommand();
    case 'backup':
    case 'restore':
      if (rest.includes('--help') || rest.includes('-h')) {
        process.stdout.write(BACKUP_USAGE);
        return 0;
      }
      return backupCommand(command, rest, {
        env: process.env,
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
      });
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`store: unknown command '${command}'\n${USAGE}`);
      return 64;
  }
}
