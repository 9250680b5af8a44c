// `store serve`: load .env and the environment, validate, build the app, listen, and drain on SIGTERM/SIGINT.

import { resolve } from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config/config.js';
import { withDotenv } from './config/dotenv.js';
import { limitHeapGrowing } from './lib/bulk-heap.js';
import { createLogger, type Logger } from './observability/logger.js';
import { DataDirError } from './storage/data-dir.js';

export async function serve(): Promise<number> {
  let config;
  try {
    config = loadConfig(withDotenv(process.env, resolve('.env')));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`store: refusing to start, ${err.message}\n`);
      return 78; // EX_CONFIG
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL);
  limitHeapGrowing();
  const fatal = fatalExit(logger);
  // What no request may cause, and the error paths are built never to: if it happens anyway, the process's state is
  // unknown, so it says why and exits for its supervisor to restart it (docs/decisions.md, "What stays fatal").
  process.on('uncaughtException', (err) => fatal('uncaught exception', err));
  process.on('unhandledRejection', (err) => fatal('unhandled promise rejection', err));
  let app;
  try {
    app = await buildApp(config, logger, { onFatal: fatal });
  } catch (err) {
    if (err instanceof DataDirError) {
      process.stderr.write(`store: refusing to start, ${err.message}\n`);
      logger.flush();
      return 73; // EX_CANTCREAT
    }
    throw err;
  }
  const address = await app.start();
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const base = `http://${host}:${address.port}${config.MOUNT_PATH}`;
  logger.info({ port: address.port, host: config.HOST, mountPath: config.MOUNT_PATH }, 'store listening');
  process.stdout.write(
    `Store is listening on ${base}\n` +
      `  S3 endpoint:  ${base}  (region ${config.STORE_REGION}, path-style)\n` +
      `  Admin API:    ${base}/api/admin   Console: ${base}/admin\n` +
      `  Try:          AWS_ACCESS_KEY_ID=${config.ROOT_ACCESS_KEY_ID} AWS_SECRET_ACCESS_KEY=<root secret from .env> aws --endpoint-url ${base} s3 ls\n`,
  );

  return new Promise<number>((done) => {
    let stopping = false;
    const shutdown = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal, drainMs: config.SHUTDOWN_DRAIN_MS }, 'draining');
      app.stop().then(
        ({ drained }) => {
          logger.info({ drained }, 'stopped');
          logger.flush(() => done(0));
        },
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          logger.flush(() => done(1));
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}

/** EX_SOFTWARE: the process stopped itself after an internal failure (sysexits.h). */
const EXIT_FATAL = 70;

/** Logs the failure at fatal level with its stack, flushes the log, and exits with EXIT_FATAL (once). */
function fatalExit(logger: Logger): (reason: string, err: unknown) => void {
  let exiting = false;
  return (reason, err) => {
    if (exiting) return;
    exiting = true;
    logger.fatal({ err }, `${reason}: exiting`);
    logger.flush(() => process.exit(EXIT_FATAL));
    // A log that cannot flush (a full disk under stdout's file) must not keep a broken process alive.
    setTimeout(() => process.exit(EXIT_FATAL), 2000).unref();
  };
}
