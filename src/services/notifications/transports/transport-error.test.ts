import { describe, expect, it } from 'vitest';
import { scrub, toTransportError, TransportError, withTimeout } from './transport-error.js';
import { LazyConnection, urlPassword } from './lazy-connection.js';

describe('scrub', () => {
  it('removes each secret, its URL-encoded form and any URL userinfo', () => {
    const out = scrub('auth p@ss/word failed for amqp://u:p%40ss%2Fword@host:5672 and redis://:x@h', ['p@ss/word']);
    expect(out).toBe('auth *** failed for amqp://***@host:5672 and redis://***@h');
  });

  it('bounds the detail and flattens whitespace', () => {
    const out = scrub(`a\n\n${'x'.repeat(500)}`, []);
    expect(out.startsWith('a x')).toBe(true);
    expect(out.length).toBeLessThanOrEqual(201);
  });
});

describe('toTransportError', () => {
  it('classes network codes, also inside AggregateError or cause, and scrubs the detail', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1 with s3cret'), { code: 'ECONNREFUSED' });
    const e = toTransportError(new AggregateError([refused], ''), { secrets: ['s3cret'], fallback: 'protocol' });
    expect(e).toBeInstanceOf(TransportError);
    expect(e.failureClass).toBe('unreachable');
    expect(e.message).not.toContain('s3cret');
    const timedOut = new Error('wrapped', { cause: Object.assign(new Error('t'), { code: 'ETIMEDOUT' }) });
    expect(toTransportError(timedOut, { secrets: [], fallback: 'auth' }).failureClass).toBe('timeout');
  });

  it('uses the fallback class otherwise and passes TransportErrors through', () => {
    expect(toTransportError(new Error('nope'), { secrets: [], fallback: 'auth' }).message).toBe('auth: nope');
    const own = new TransportError('refused', 'x');
    expect(toTransportError(own, { secrets: [], fallback: 'auth' })).toBe(own);
  });
});

describe('withTimeout', () => {
  it('rejects "timeout" when the work does not settle in time', async () => {
    const never = new Promise<void>(() => undefined);
    await expect(withTimeout(never, 5, 'waiting')).rejects.toThrow(/^timeout: waiting took longer than 5 ms$/);
  });

  it('passes the result through', async () => {
    await expect(withTimeout(Promise.resolve(7), 1000, 'x')).resolves.toBe(7);
  });
});

describe('LazyConnection', () => {
  it('opens once for concurrent gets, reopens after a failed open or a discard, and refuses after close', async () => {
    let opened = 0;
    const disposed: number[] = [];
    let failNext = true;
    const conn = new LazyConnection<number>(
      async () => {
        if (failNext) {
          failNext = false;
          throw new Error('down');
        }
        return ++opened;
      },
      async (c) => {
        disposed.push(c);
      },
    );
    await expect(conn.get()).rejects.toThrow('down');
    const [a, b] = await Promise.all([conn.get(), conn.get()]);
    expect([a, b]).toEqual([1, 1]);
    await conn.discard(1);
    expect(await conn.get()).toBe(2);
    await conn.close();
    expect(disposed).toEqual([1, 2]);
    await expect(conn.get()).rejects.toThrow(/^closed: /);
  });
});

describe('urlPassword', () => {
  it('finds the decoded password of a URL, or nothing', () => {
    expect(urlPassword('amqp://u:p%40ss@h')).toBe('p@ss');
    expect(urlPassword('amqp://h')).toBeUndefined();
    expect(urlPassword('not a url')).toBeUndefined();
  });
});
