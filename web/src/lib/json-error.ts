// Where a JSON text stops being JSON. Browsers' JSON.parse messages do not always carry a position (Chromium's
// "Unexpected token '}', ... is not valid JSON" has none), so the editors find it with this small scanner of the
// JSON grammar (RFC 8259). Pure (unit-tested in Node).

export interface JsonSyntaxError {
  offset: number;
  message: string;
}

/** The first syntax error in `text`, or undefined when it is valid JSON. */
export function findJsonError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw Object.assign(new Error(message), { offset: i });
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const describe = (): string =>
    i >= text.length ? 'the text ends too early' : `unexpected ${JSON.stringify(text[i])}`;
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(describe());
  };
  const string = (): void => {
    i++; // the opening quote
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        const e = text[i + 1] ?? '';
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('a \\u escape needs four hex digits');
          i += 6;
        } else if ('"\\/bfnrt'.includes(e) && e !== '') i += 2;
        else fail(`unknown escape \\${e}`);
        continue;
      }
      if (c < ' ') fail('control characters must be escaped inside a string');
      i++;
    }
    fail('a string is not closed');
  };
  const number = (): void => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m || m[0] === '' || m[0] === '-') fail(describe());
    i += (m as RegExpExecArray)[0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') object();
    else if (c === '[') array();
    else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else fail(`expected a value, ${describe()}`);
  };
  const object = (): void => {
    i++;
    ws();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] !== '"') fail(`expected a property name in double quotes, ${describe()}`);
      string();
      ws();
      if (text[i] !== ':') fail(`expected ':' after a property name, ${describe()}`);
      i++;
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      fail(`expected ',' or '}', ${describe()}`);
    }
  };
  const array = (): void => {
    i++;
    ws();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      value();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      fail(`expected ',' or ']', ${describe()}`);
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`unexpected text after the JSON value, ${describe()}`);
    return undefined;
  } catch (err) {
    const e = err as Error & { offset?: number };
    return { offset: e.offset ?? i, message: e.message };
  }
}
