// The admin API's error envelope: {error, message, statusCode}, one renderer for every admin failure.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../core/errors.js';
import { toClientError } from '../../core/system-errors.js';
import { isClientAbort } from '../shared/client-abort.js';

export interface ErrorEnvelope {
  error: string;
  message: string;
  statusCode: number;
}

export function envelope(err: AppError): ErrorEnvelope {
  return { error: err.code, message: err.message, statusCode: err.statusCode };
}

/**
 * Fastify error handler: AppErrors as themselves, schema failures as ValidationError naming the field, a client that
 * went away as nothing at all, a full volume as InsufficientStorage (507), the rest as 500.
 */
export function handleAdminError(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): void {
  let appError: AppError;
  if (isAppError(err)) {
    appError = err;
  } else if ('validation' in err && err.validation) {
    const first = err.validation[0];
    const unknown = first?.params?.['additionalProperty'];
    const path = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
    if (typeof unknown === 'string') {
      appError = new AppError('ValidationError', { message: `${path ? `${path}.` : ''}${unknown}: is not a known property` });
    } else {
      const field = path || String(first?.params?.['missingProperty'] ?? 'body');
      appError = new AppError('ValidationError', { message: `${field}: ${first?.message ?? 'is invalid'}` });
    }
  } else if ('statusCode' in err && typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    appError = new AppError(err.statusCode === 413 ? 'MaxMessageLengthExceeded' : 'InvalidRequest', { message: err.message });
  } else if (isClientAbort(req.raw, err)) {
    // The client went away mid-request (an upload cut short): nothing to answer, and not a server error.
    reply.hijack();
    reply.raw.destroy();
    return;
  } else {
    appError = toClientError(err);
    if (appError.code === 'InsufficientStorage') req.log.warn({ err }, 'admin write refused: the data volume is full');
    else req.log.error({ err }, 'admin request failed');
  }
  for (const [name, value] of Object.entries(appError.headers)) void reply.header(name, value);
  void reply.status(appError.statusCode).send(envelope(appError));
}
