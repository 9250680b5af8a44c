import { describe, expect, it } from 'vitest';
import { findJsonError } from './json-error';

describe('findJsonError', () => {
  it('accepts everything JSON.parse accepts', () => {
    for (const text of [
      '{}',
      '[]',
      ' 1 ',
      '-0.5e+3',
      '"a\\u00e9\\n"',
      'true',
      'null',
      '{"a": [1, {"b": false}], "c": "x"}',
    ]) {
      expect(findJsonError(text), text).toBeUndefined();
      expect(() => JSON.parse(text)).not.toThrow();
    }
  });

  it('finds the offset of the first error', () => {
    expect(findJsonError('{ "a": [ }')).toEqual({ offset: 9, message: 'expected a value, unexpected "}"' });
    expect(findJsonError('{"a" 1}')).toMatchObject({ offset: 5, message: expect.stringContaining("expected ':'") });
    expect(findJsonError('{"a": 1,}')).toMatchObject({ offset: 8, message: expect.stringContaining('property name') });
    expect(findJsonError("{'a': 1}")).toMatchObject({ offset: 1 });
    expect(findJsonError('[1 2]')).toMatchObject({ offset: 3, message: expect.stringContaining("',' or ']'") });
    expect(findJsonError('{"a": 1} x')).toMatchObject({
      offset: 9,
      message: expect.stringContaining('after the JSON value'),
    });
    expect(findJsonError('"open')).toMatchObject({ message: 'a string is not closed' });
    expect(findJsonError('{"a": tru}')).toMatchObject({ offset: 6 });
    expect(findJsonError('')).toMatchObject({ offset: 0, message: expect.stringContaining('ends too early') });
    expect(findJsonError('01')).toMatchObject({ offset: 1 });
  });

  it('agrees with JSON.parse on which texts are invalid', () => {
    for (const text of ['{', '[,]', '{"a":}', '"\\x"', '"\t"', '1.', '.5', '+1', 'NaN', '[1,]']) {
      expect(() => JSON.parse(text), text).toThrow();
      expect(findJsonError(text), text).toBeDefined();
    }
  });
});
