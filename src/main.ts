// `store serve`: load .env, the environment and DATA_DIR/secrets.env (generating what --init may), validate, build
// the app, listen, and drain on SIGTERM/SIGINT.

import { resolve } from 'node:path';
import { buildApp } from './app/app.js';
import { initBucketProblems } from './app/init-buckets.js';
import { planStart, type StartPlan } from './cli/first-start.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { withDotenv } from './config/dotenv.js';
import { limitHeapGrowing } from './lib/bulk-heap.js';
import { trimHeapWhenIdle } from './lib/idle-heap.js';
import { createLogger, type Logger } from './observability/logger.js';
import { DataDirError } from './storage/data-dir.js';

/** The accepted configuration and the start's plan, or the refusal's exit code (78, or 73 for an unreadable file). */
async function configure(opts: { init: boolean }): Promise<{ config: Config; plan: StartPlan } | number> {
  let plan: StartPlan | undefined;
  try {
    plan = await planStart(withDotenv(process.env, resolve('.env')), opts);
    const config = loadConfig(plan.env);
    const bucketProblems = initBucketProblems(config);
    if (bucketProblems.length > 0) throw new ConfigError(bucketProblems);
    return { config, plan };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`store: refusing to start, ${err.message}\n${plan?.hint ? `  (${plan.hint})\n` : ''}`);
      return 78; // EX_CONFIG
    }
    if (err instanceof DataDirError) {
      process.stderr.write(`store: refusing to start, ${err.message}\n`);
      return 73; // EX_CANTCREAT
    }
    throw err;
  }
}

export async function serve(opts: { init?: boolean } = {}): Promise<number> {
  const configured = await configure({ init: opts.init ?? false });
  if (typeof configured === 'number') return configured;
  const { config, plan } = configured;
  const logger = createLogger(config.LOG_LEVEL);
  limitHeapGrowing();
  const fatal = fatalExit(logger);
  // What no request may cause, and the error paths are built never to: if it happens anyway, the process's state is
  // unknown, so it says why and exits for its supervisor to restart it (docs/decisions.md, "What stays fatal").
  process.on('uncaughtException', (err) => fatal('uncaught exception', err));
  process.on('unhandledRejection', (err) => fatal('unhandled promise rejection', err));
  let app;
  try {
    // Generated credentials are saved before anything else lands in the data directory, and printed once.
    process.stdout.write(plan.commit(config.ADMIN_USERNAME));
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
  const idleTrim = trimHeapWhenIdle();
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const base = `http://${host}:${address.port}${config.MOUNT_PATH}`;
  logger.info({ port: address.port, host: config.HOST, mountPath: config.MOUNT_PATH }, 'store listening');
  process.stdout.write(
    `Store is listening on ${base}\n` +
      `  S3 endpoint:  ${base}  (region ${config.STORE_REGION}, path-style)\n` +
      `  Admin API:    ${base}/api/admin   Console: ${base}/admin\n` +
      `  Try:          AWS_ACCESS_KEY_ID=${config.ROOT_ACCESS_KEY_ID} AWS_SECRET_ACCESS_KEY=<ROOT_SECRET_ACCESS_KEY> ` +
      `aws --endpoint-url ${base} s3 ls\n`,
  );

  return new Promise<number>((done) => {
    let stopping = false;
    const shutdown = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal, drainMs: config.SHUTDOWN_DRAIN_MS }, 'draining');
      idleTrim.stop();
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
