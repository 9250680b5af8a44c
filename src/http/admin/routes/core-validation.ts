// core/ validators answer a malformed document with S3's MalformedXML. The admin API takes JSON, so it reports the
// same fault as ValidationError naming the field; every other core code (InvalidArgument, InvalidTag,
// MalformedPolicy, InvalidRequest, ...) passes through unchanged, as the S3 plane answers it.

import { AppError, isAppError } from '../../../core/errors.js';

/** True for the codes that mean "the document's shape is wrong" rather than a rule about its values. */
function isShapeError(err: unknown): err is AppError {
  return isAppError(err) && (err.code === 'MalformedXML' || err.code === 'MissingRequestBodyError');
}

/**
 * Runs fn; a MalformedXML from core becomes ValidationError "<field>: <core's message>". `field` may be a function
 * that finds the faulty element (for example the index of the rule core refused), called only on failure.
 */
export function withFieldErrors<T>(field: string | (() => string), fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!isShapeError(err)) throw err;
    const name = typeof field === 'string' ? field : field();
    throw new AppError('ValidationError', { message: `${name}: ${err.message}`, cause: err });
  }
}

/**
 * The path (`rules.2`) of the first rule that core refuses as malformed on its own, else `rules`: lets a
 * ValidationError about a 40-rule lifecycle document say which rule is wrong.
 */
export function firstMalformedRule<R>(rules: readonly R[], validateOne: (rule: R) => void): string {
  for (const [i, rule] of rules.entries()) {
    try {
      validateOne(rule);
    } catch (err) {
      if (isShapeError(err)) return `rules.${i}`;
    }
  }
  return 'rules';
}
