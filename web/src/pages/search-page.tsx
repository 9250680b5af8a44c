// Search across buckets: key substring (optionally ignoring case), prefix, bucket, size and date ranges. A page
// can come back short (even empty) with a cursor: the console keeps following it until the page is full or the
// search is done, showing "searching…" meanwhile (docs/admin-search.md).

import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api } from '../api';
import { describeError } from '../api/errors';
import type { BucketSummary, SearchItem, SearchPage } from '../api/types';
import { useResource } from '../hooks/use-resource';
import { formatBytes, formatTime, parseSize } from '../lib/format';
import { parentPrefix } from '../lib/object-keys';
import { Link, setQuery, useLocation } from '../router';
import { Button, Checkbox, SelectField, TextField } from '../ui/controls';
import { Empty, ErrorNote, Loading } from '../ui/feedback';
import { Card, PageHeader, TableWrap } from '../ui/layout';

const PAGE = 100;
const FIELDS = ['q', 'ignoreCase', 'prefix', 'bucket', 'minSize', 'maxSize', 'from', 'to'] as const;
type Filters = Record<(typeof FIELDS)[number], string>;

function objectRoute(item: SearchItem): string {
  const query = new URLSearchParams({ prefix: parentPrefix(item.key), object: item.key });
  return `buckets/${encodeURIComponent(item.bucket)}/browse?${query.toString()}`;
}

export default function SearchPage() {
  const { query } = useLocation();
  const applied = Object.fromEntries(FIELDS.map((f) => [f, query.get(f) ?? ''])) as Filters;
  const [form, setForm] = useState<Filters>(applied);
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  const [items, setItems] = useState<SearchItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [state, setState] = useState<'idle' | 'searching' | 'done'>('idle');
  const [error, setError] = useState<string>();
  const run = useRef(0);
  const key = query.toString();
  const hasFilter = FIELDS.some((f) => applied[f] !== '' && f !== 'ignoreCase');

  const fetchUntilFull = async (from: string | null, id: number, have: SearchItem[]): Promise<void> => {
    setState('searching');
    setError(undefined);
    let next = from;
    let got = have;
    try {
      do {
        const page = await api.get<SearchPage>('/objects/search', {
          q: applied.q,
          ignoreCase: applied.ignoreCase === 'true' ? true : undefined,
          prefix: applied.prefix,
          bucket: applied.bucket,
          minSize: applied.minSize,
          maxSize: applied.maxSize,
          from: applied.from,
          to: applied.to,
          limit: PAGE,
          cursor: next ?? undefined,
        });
        if (id !== run.current) return;
        got = [...got, ...page.items];
        next = page.nextCursor;
        setItems(got);
        setCursor(next);
      } while (next !== null && got.length - have.length < PAGE);
      setState(next === null ? 'done' : 'idle');
    } catch (err) {
      if (id === run.current) {
        setError(describeError(err));
        setState('idle');
      }
    }
  };

  useEffect(() => {
    setForm(applied);
    setItems([]);
    setCursor(null);
    const id = ++run.current;
    if (hasFilter) void fetchUntilFull(null, id, []);
    else setState('idle');
    // Only a new query (key) starts a new search; the rest follows from it.
  }, [key]);

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    for (const f of ['minSize', 'maxSize'] as const) {
      if (form[f] !== '' && parseSize(form[f]) === undefined) {
        setError(`${f === 'minSize' ? 'Minimum' : 'Maximum'} size: write a size such as 10 MiB or 2048.`);
        return;
      }
    }
    setQuery(
      {
        ...form,
        ignoreCase: form.ignoreCase === 'true' ? 'true' : undefined,
        minSize: form.minSize === '' ? undefined : String(parseSize(form.minSize)),
        maxSize: form.maxSize === '' ? undefined : String(parseSize(form.maxSize)),
      },
      { push: true },
    );
  };
  const set = (f: keyof Filters, v: string): void => setForm((x) => ({ ...x, [f]: v }));

  return (
    <>
      <PageHeader title="Search" subtitle="Find current objects in every bucket by name, size and date." />
      <Card>
        <form className="stack" onSubmit={submit} role="search" aria-label="Objects">
          <div className="form-row">
            <TextField label="Key contains" value={form.q} onChange={(e) => set('q', e.target.value)} autoFocus />
            <TextField label="Key starts with" value={form.prefix} onChange={(e) => set('prefix', e.target.value)} />
            <SelectField
              label="Bucket"
              value={form.bucket}
              onChange={(e) => set('bucket', e.target.value)}
              options={[
                { value: '', label: 'Every bucket' },
                ...(buckets.data?.buckets ?? []).map((b) => ({ value: b.name, label: b.name })),
              ]}
            />
          </div>
          <div className="form-row">
            <TextField
              label="Larger than or equal to"
              value={form.minSize}
              onChange={(e) => set('minSize', e.target.value)}
              placeholder="e.g. 10 MiB"
            />
            <TextField
              label="Smaller than or equal to"
              value={form.maxSize}
              onChange={(e) => set('maxSize', e.target.value)}
              placeholder="e.g. 1 GiB"
            />
            <TextField
              label="Modified from (UTC)"
              type="date"
              value={form.from}
              onChange={(e) => set('from', e.target.value)}
            />
            <TextField
              label="Modified before (UTC)"
              type="date"
              value={form.to}
              onChange={(e) => set('to', e.target.value)}
            />
          </div>
          <Checkbox
            label="Ignore case (ASCII letters)"
            checked={form.ignoreCase === 'true'}
            onChange={(e) => set('ignoreCase', e.target.checked ? 'true' : '')}
          />
          <div className="actions">
            <Button type="submit" variant="primary" icon="search">
              Search
            </Button>
          </div>
        </form>
      </Card>
      {error ? <ErrorNote message={error} /> : null}
      {!hasFilter ? (
        <Empty>Enter something to search for.</Empty>
      ) : (
        <Card title={`Results${items.length ? ` (${items.length}${cursor ? '+' : ''})` : ''}`}>
          {items.length === 0 && state === 'done' ? <Empty>Nothing matches.</Empty> : null}
          {items.length > 0 ? (
            <TableWrap label="Search results">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Bucket</th>
                    <th scope="col">Key</th>
                    <th scope="col" className="num">
                      Size
                    </th>
                    <th scope="col">Last modified</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((i) => (
                    <tr key={`${i.bucket}/${i.key}`}>
                      <td>{i.bucket}</td>
                      <td className="break">
                        <Link to={objectRoute(i)}>{i.key}</Link>
                      </td>
                      <td className="num">{formatBytes(i.size)}</td>
                      <td>{formatTime(i.lastModified)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          ) : null}
          {state === 'searching' ? <Loading label="Searching…" /> : null}
          {state === 'idle' && cursor !== null ? (
            <Button onClick={() => void fetchUntilFull(cursor, run.current, items)}>Show more</Button>
          ) : null}
        </Card>
      )}
    </>
  );
}
