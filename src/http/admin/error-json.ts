// The admin API's error envelope: {error, message, statusCode}, one renderer for every admin failure.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../core/errors.js';
import { toClientError } from '../../core/system-errors.js';
import { isClientAbort } from '../shared/client-abort.js';
import { endUnreadBody } from '../shared/request-bytes.js';

export interface ErrorEnvelope {
  error: string;
  message: string;
  statusCode: number;
}

export function envelope(err: AppError): ErrorEnvelope {
  return { error: err.code, message: err.message, statusCode: err.statusCode };
}

/**
 * The Fastify error handler: AppErrors as themselves, schema failures as ValidationError naming the field, a client
 * that went away as nothing at all, a full volume as InsufficientStorage (507), the rest as 500 InternalError, logged
 * once with its stack and counted through `onInternalError`. An upload whose body was not read to the end is answered
 * with `Connection: close` while the rest of it is discarded (request-bytes.ts).
 */
export function adminErrorHandler(opts: { onInternalError?: () => void } = {}) {
  return function handleAdminError(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): void {
    let appError: AppError;
    if (isAppError(err)) {
      appError = err;
    } else if ('validation' in err && err.validation) {
      appError = validationError(err.validation);
    } else if (
      'statusCode' in err &&
      typeof err.statusCode === 'number' &&
      err.statusCode >= 400 &&
      err.statusCode < 500
    ) {
      appError = new AppError(err.statusCode === 413 ? 'MaxMessageLengthExceeded' : 'InvalidRequest', {
        message: err.message,
      });
    } else if (isClientAbort(req.raw, err)) {
      // The client went away mid-request (an upload cut short): nothing to answer, and not a server error.
      reply.hijack();
      reply.raw.destroy();
      return;
    } else {
      appError = toClientError(err);
      if (appError.code === 'InsufficientStorage') {
        req.log.warn({ err }, 'admin write refused: the data volume is full');
      } else {
        req.log.error({ err }, 'admin request failed');
        opts.onInternalError?.();
      }
    }
    for (const [name, value] of Object.entries(appError.headers)) void reply.header(name, value);
    if (endUnreadBody(req.raw)) void reply.header('connection', 'close');
    void reply.status(appError.statusCode).send(envelope(appError));
  };
}

/** A schema failure as ValidationError naming the field (or the property no schema allows). */
function validationError(validation: NonNullable<FastifyError['validation']>): AppError {
  const first = validation[0];
  const unknown = first?.params?.['additionalProperty'];
  const path = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
  if (typeof unknown === 'string') {
    return new AppError('ValidationError', { message: `${path ? `${path}.` : ''}${unknown}: is not a known property` });
  }
  const field = path || String(first?.params?.['missingProperty'] ?? 'body');
  return new AppError('ValidationError', { message: `${field}: ${first?.message ?? 'is invalid'}` });
}
