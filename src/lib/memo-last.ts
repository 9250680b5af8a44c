// A one-entry memo for pure parsers of request text that repeats from one request to the next: a client's x-amz-date
// within a second, its credential scope and signed-header list, a peer's address. A HEAD spends about 100 µs of CPU in
// all, and each of these parses cost a few of them (docs/performance.md, "the per-request CPU of a HEAD").

/**
 * Wraps `parse` so that consecutive calls with the same text run it once: the last text and its result are kept.
 * The result is shared between those calls, so `parse` must be pure and return a value nobody modifies (freeze
 * objects and arrays). A call that throws leaves the kept entry as it was.
 */
export function memoLast<T>(parse: (text: string) => T): (text: string) => T {
  let lastText: string | undefined;
  let lastResult: T | undefined;
  return (text) => {
    if (text !== lastText) {
      lastResult = parse(text);
      lastText = text;
    }
    return lastResult as T;
  };
}
