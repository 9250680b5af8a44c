// Search across buckets: key substring (ignoring case unless "Match case"), prefix, bucket, size (with units) and
// date ranges, and a tag (key, or key and value). A page
// can come back short (even empty) with a cursor: the console keeps following it until the page is full or the
// search is done, showing "searching…" meanwhile (docs/admin-search.md).

import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api } from '../api';
import { describeError } from '../api/errors';
import type { BucketSummary, SearchItem, SearchPage } from '../api/types';
import { useResource } from '../hooks/use-resource';
import { formatBytes, formatTime, joinSize, SIZE_UNITS, splitSize } from '../lib/format';
import { parentPrefix } from '../lib/object-keys';
import { Link, setQuery, useLocation } from '../router';
import { Button, Checkbox, SelectField, TextField } from '../ui/controls';
import { Empty, ErrorNote, Loading } from '../ui/feedback';
import { Card, PageHeader, TableWrap } from '../ui/layout';

const PAGE = 100;
const FIELDS = [
  'q',
  'matchCase',
  'prefix',
  'bucket',
  'minSize',
  'maxSize',
  'from',
  'to',
  'tagKey',
  'tagValue',
] as const;
type Filters = Record<(typeof FIELDS)[number], string>;
/** The form: the URL's filters, with each size as an amount and a unit (the URL keeps bytes). */
type Form = Filters & { minUnit: string; maxUnit: string };
const unitOptions = SIZE_UNITS.map((u) => ({ value: u.unit, label: u.unit }));

function formOf(applied: Filters): Form {
  const min = applied.minSize === '' ? { amount: '', unit: 'MiB' } : splitSize(Number(applied.minSize));
  const max = applied.maxSize === '' ? { amount: '', unit: 'MiB' } : splitSize(Number(applied.maxSize));
  return { ...applied, minSize: min.amount, minUnit: min.unit, maxSize: max.amount, maxUnit: max.unit };
}

/** An amount and its unit side by side, labelled together. */
function SizeField({
  label,
  amount,
  unit,
  onAmount,
  onUnit,
}: {
  label: string;
  amount: string;
  unit: string;
  onAmount: (v: string) => void;
  onUnit: (v: string) => void;
}) {
  return (
    <fieldset className="size-field">
      <legend>{label}</legend>
      <input
        className="input"
        type="number"
        min={0}
        step="any"
        inputMode="decimal"
        aria-label={`${label}: amount`}
        value={amount}
        onChange={(e) => onAmount(e.target.value)}
      />
      <select className="input" aria-label={`${label}: unit`} value={unit} onChange={(e) => onUnit(e.target.value)}>
        {unitOptions.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </fieldset>
  );
}

function objectRoute(item: SearchItem): string {
  const query = new URLSearchParams({ prefix: parentPrefix(item.key), object: item.key });
  return `buckets/${encodeURIComponent(item.bucket)}/browse?${query.toString()}`;
}

export default function SearchPage() {
  const { query } = useLocation();
  const applied = Object.fromEntries(FIELDS.map((f) => [f, query.get(f) ?? ''])) as Filters;
  const [form, setForm] = useState<Form>(formOf(applied));
  const buckets = useResource((signal) => api.get<{ buckets: BucketSummary[] }>('/buckets', undefined, signal), []);
  const [items, setItems] = useState<SearchItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [state, setState] = useState<'idle' | 'searching' | 'done'>('idle');
  const [error, setError] = useState<string>();
  const run = useRef(0);
  const key = query.toString();
  const hasFilter = FIELDS.some((f) => applied[f] !== '' && f !== 'matchCase' && f !== 'tagValue');

  const fetchUntilFull = async (from: string | null, id: number, have: SearchItem[]): Promise<void> => {
    setState('searching');
    setError(undefined);
    let next = from;
    let got = have;
    try {
      do {
        const page = await api.get<SearchPage>('/objects/search', {
          q: applied.q,
          // Case is ignored unless "Match case" is ticked (docs/console.md, "Search").
          ignoreCase: applied.matchCase === 'true' ? undefined : true,
          prefix: applied.prefix,
          bucket: applied.bucket,
          minSize: applied.minSize,
          maxSize: applied.maxSize,
          from: applied.from,
          to: applied.to,
          tagKey: applied.tagKey,
          tagValue: applied.tagKey !== '' && applied.tagValue !== '' ? applied.tagValue : undefined,
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
    setForm(formOf(applied));
    setItems([]);
    setCursor(null);
    const id = ++run.current;
    if (hasFilter) void fetchUntilFull(null, id, []);
    else setState('idle');
    // Only a new query (key) starts a new search; the rest follows from it.
  }, [key]);

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const min = form.minSize === '' ? undefined : joinSize(form.minSize, form.minUnit);
    const max = form.maxSize === '' ? undefined : joinSize(form.maxSize, form.maxUnit);
    if ((form.minSize !== '' && min === undefined) || (form.maxSize !== '' && max === undefined)) {
      setError('Sizes are numbers, 0 or more, in the unit next to them.');
      return;
    }
    if (form.tagValue !== '' && form.tagKey === '') {
      setError('A tag value needs a tag key.');
      return;
    }
    const { minUnit: _min, maxUnit: _max, ...filters } = form;
    setQuery(
      {
        ...filters,
        matchCase: form.matchCase === 'true' ? 'true' : undefined,
        minSize: min === undefined ? undefined : String(min),
        maxSize: max === undefined ? undefined : String(max),
      },
      { push: true },
    );
  };
  const set = (f: keyof Form, v: string): void => setForm((x) => ({ ...x, [f]: v }));

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
            <SizeField
              label="At least"
              amount={form.minSize}
              unit={form.minUnit}
              onAmount={(v) => set('minSize', v)}
              onUnit={(v) => set('minUnit', v)}
            />
            <SizeField
              label="At most"
              amount={form.maxSize}
              unit={form.maxUnit}
              onAmount={(v) => set('maxSize', v)}
              onUnit={(v) => set('maxUnit', v)}
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
          <div className="form-row">
            <TextField
              label="Tag key"
              value={form.tagKey}
              onChange={(e) => set('tagKey', e.target.value)}
              hint="Objects with this tag (exact case)."
            />
            <TextField
              label="Tag value"
              value={form.tagValue}
              onChange={(e) => set('tagValue', e.target.value)}
              hint="Empty: any value."
            />
          </div>
          <Checkbox
            label="Match case"
            checked={form.matchCase === 'true'}
            onChange={(e) => set('matchCase', e.target.checked ? 'true' : '')}
            hint="Off: “readme” also finds README.md (ASCII letters are folded)."
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
