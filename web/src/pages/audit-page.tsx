// The audit log: filters (event, subject, bucket, time range) in the URL, newest first, "older" paging by cursor.

import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api';
import { describeError } from '../api/errors';
import type { AuditItem, AuditPage as AuditPageBody } from '../api/types';
import { useResource } from '../hooks/use-resource';
import { formatTime } from '../lib/format';
import { setQuery, useLocation } from '../router';
import { Button, SelectField, TextField } from '../ui/controls';
import { Empty, ErrorNote, Loading } from '../ui/feedback';
import { Card, PageHeader, TableWrap } from '../ui/layout';

const FIELDS = ['event', 'subject', 'bucket', 'from', 'to'] as const;
type Filters = Record<(typeof FIELDS)[number], string>;

/** A datetime-local value (UTC, as the label says) as ISO 8601. */
const isoOf = (local: string): string | undefined =>
  local === '' ? undefined : `${local}${local.length === 16 ? ':00' : ''}Z`;

export default function AuditLogPage() {
  const { query } = useLocation();
  const applied = Object.fromEntries(FIELDS.map((f) => [f, query.get(f) ?? ''])) as Filters;
  const [form, setForm] = useState<Filters>(applied);
  const catalog = useResource((signal) => api.get<{ events: string[] }>('/audit/catalog', undefined, signal), []);
  const [items, setItems] = useState<AuditItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const [open, setOpen] = useState<string>();
  const key = query.toString();

  const load = async (after: string | null, base: AuditItem[]): Promise<void> => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await api.get<AuditPageBody>('/audit', {
        event: applied.event,
        subject: applied.subject,
        bucket: applied.bucket,
        from: isoOf(applied.from),
        to: isoOf(applied.to),
        cursor: after ?? undefined,
        limit: 50,
      });
      setItems([...base, ...page.items]);
      setCursor(page.nextCursor);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    setForm(applied);
    void load(null, []);
    // Only a new query (key) starts a new load; load and applied follow from it.
  }, [key]);

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    setQuery(form, { push: true });
  };
  const set = (f: keyof Filters, v: string): void => setForm((x) => ({ ...x, [f]: v }));
  return (
    <>
      <PageHeader
        title="Audit log"
        subtitle="Every change made through the admin API and every sign-in, newest first. Records appear within a few seconds."
      />
      <Card>
        <form className="stack" onSubmit={submit} aria-label="Audit filters">
          <div className="form-row">
            <SelectField
              label="Event"
              value={form.event}
              onChange={(e) => set('event', e.target.value)}
              options={[
                { value: '', label: 'Every event' },
                ...(catalog.data?.events ?? []).map((ev) => ({ value: ev, label: ev })),
              ]}
            />
            <TextField
              label="Subject (username)"
              value={form.subject}
              onChange={(e) => set('subject', e.target.value)}
            />
            <TextField label="Bucket" value={form.bucket} onChange={(e) => set('bucket', e.target.value)} />
          </div>
          <div className="form-row">
            <TextField
              label="From (UTC)"
              type="datetime-local"
              value={form.from}
              onChange={(e) => set('from', e.target.value)}
            />
            <TextField
              label="Until (UTC)"
              type="datetime-local"
              value={form.to}
              onChange={(e) => set('to', e.target.value)}
            />
          </div>
          <div className="actions">
            <Button type="submit" variant="primary">
              Apply filters
            </Button>
            <Button onClick={() => setQuery(Object.fromEntries(FIELDS.map((f) => [f, undefined])), { push: true })}>
              Clear
            </Button>
          </div>
        </form>
      </Card>
      {error ? <ErrorNote message={error} onRetry={() => void load(null, [])} /> : null}
      {items.length === 0 && !loading && !error ? <Empty>No records match.</Empty> : null}
      {items.length > 0 ? (
        <TableWrap label="Audit records">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Subject</th>
                <th scope="col">Bucket</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => (
                <tr key={i.id}>
                  <td className="nowrap">{formatTime(i.time)}</td>
                  <td className="mono">{i.event}</td>
                  <td>{i.subject}</td>
                  <td>{i.bucket ?? '–'}</td>
                  <td>
                    {Object.keys(i.details).length === 0 ? (
                      '–'
                    ) : (
                      <>
                        <button
                          type="button"
                          className="btn btn-ghost"
                          aria-expanded={open === i.id}
                          onClick={() => setOpen(open === i.id ? undefined : i.id)}
                        >
                          {open === i.id ? 'Hide' : 'Show'}
                          <span className="visually-hidden">
                            {' '}
                            details of {i.event} at {formatTime(i.time)}
                          </span>
                        </button>
                        {open === i.id ? <pre className="code-block">{JSON.stringify(i.details, null, 2)}</pre> : null}
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {loading ? <Loading /> : cursor ? <Button onClick={() => void load(cursor, items)}>Older records</Button> : null}
    </>
  );
}
