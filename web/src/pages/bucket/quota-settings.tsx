// The bucket's hard quota (docs/quotas.md): usage against each limit, and a form for a full admin to set or remove
// it. Read-only admins see the same figures with the form disabled and no buttons.

import { useEffect, useState, type FormEvent } from 'react';
import { api, Api } from '../../api';
import type { BucketQuotaView } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { formatBytes, formatCount, formatPercent, parseSize } from '../../lib/format';
import { Button, TextField, WriteFieldset } from '../../ui/controls';
import { ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Badge, Card } from '../../ui/layout';

/** One limit's line: "7 B of 1 KiB (0.68%)" with a bar, or "7 B, no limit". */
function UsageLine(props: { label: string; used: number; limit: number | undefined; format: (n: number) => string }) {
  const { label, used, limit, format } = props;
  const ratio = limit === undefined ? undefined : limit === 0 ? (used > 0 ? 1 : 0) : used / limit;
  return (
    <div className="quota-line" data-quota={label.toLowerCase()}>
      <p>
        <strong>{label}:</strong>{' '}
        {limit === undefined ? (
          <>
            {format(used)}, <Badge>no limit</Badge>
          </>
        ) : (
          <>
            {format(used)} of {format(limit)} ({formatPercent(used / Math.max(limit, 1))})
            {used >= limit ? (
              <>
                {' '}
                <Badge tone="warn">{used > limit ? 'over quota' : 'full'}</Badge>
              </>
            ) : null}
          </>
        )}
      </p>
      {ratio !== undefined ? (
        <progress max={1} value={Math.min(ratio, 1)} aria-label={`${label} used of the quota`} />
      ) : null}
    </div>
  );
}

/** A byte count in the largest binary unit that divides it exactly (editing it back never rounds it). */
function exactSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let unit = 0;
  let value = bytes;
  while (value !== 0 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value} ${units[unit]}`;
}

/** The form's text as a quota, or the sentence saying what is wrong with it. */
function toQuota(bytes: string, objects: string): { maxBytes?: number; maxObjects?: number } | string {
  const quota: { maxBytes?: number; maxObjects?: number } = {};
  if (bytes.trim() !== '') {
    const parsed = parseSize(bytes);
    if (parsed === undefined || !Number.isSafeInteger(parsed)) return 'The byte limit must be a size such as 10 GiB.';
    quota.maxBytes = parsed;
  }
  if (objects.trim() !== '') {
    const parsed = Number(objects.trim());
    if (!Number.isSafeInteger(parsed) || parsed < 0) return 'The object limit must be a whole number.';
    quota.maxObjects = parsed;
  }
  if (quota.maxBytes === undefined && quota.maxObjects === undefined)
    return 'Give a byte limit, an object limit, or both.';
  return quota;
}

export function QuotaSettings({ bucket, onChanged }: { bucket: string; onChanged?: () => void }) {
  const view = useResource(
    (signal) => api.get<BucketQuotaView>(Api.bucket(bucket, '/quota'), undefined, signal),
    [bucket],
  );
  const current = view.data?.quota;
  const [bytes, setBytes] = useState('');
  const [objects, setObjects] = useState('');
  useEffect(() => {
    setBytes(current?.maxBytes === undefined ? '' : exactSize(current.maxBytes));
    setObjects(current?.maxObjects === undefined ? '' : String(current.maxObjects));
  }, [current?.maxBytes, current?.maxObjects]);
  const { notify } = useToast();
  const { run, busy, error, setError } = useAction(async (fn: () => Promise<unknown>, done: string) => {
    await fn();
    notify(done);
    view.reload();
    onChanged?.();
  });
  const save = (event: FormEvent): void => {
    event.preventDefault();
    const quota = toQuota(bytes, objects);
    if (typeof quota === 'string') {
      setError(quota);
      return;
    }
    void run(() => api.put(Api.bucket(bucket, '/quota'), quota), 'Quota saved.');
  };
  return (
    <Card title="Quota">
      <p className="muted">
        Writes that would take the bucket over a limit are refused with QuotaExceeded (403). Bytes count every version
        and the parts of unfinished multipart uploads; objects count current objects.
      </p>
      <Loaded resource={view} feature="Quota">
        {(v) => (
          <>
            <UsageLine label="Bytes" used={v.usage.bytes} limit={v.quota?.maxBytes} format={formatBytes} />
            <UsageLine label="Objects" used={v.usage.objects} limit={v.quota?.maxObjects} format={formatCount} />
            <form onSubmit={save} aria-label="Bucket quota">
              <WriteFieldset legend="Limits">
                <TextField
                  label="Byte limit"
                  hint="A size such as 500 MiB or 2 TiB; empty for no byte limit."
                  value={bytes}
                  onChange={(e) => setBytes(e.target.value)}
                  inputMode="text"
                />
                <TextField
                  label="Object limit"
                  hint="Empty for no object limit."
                  value={objects}
                  onChange={(e) => setObjects(e.target.value)}
                  inputMode="numeric"
                />
              </WriteFieldset>
              <div className="actions">
                <Button type="submit" variant="primary" write busy={busy}>
                  Save quota
                </Button>
                {v.quota ? (
                  <Button
                    write
                    busy={busy}
                    onClick={() => void run(() => api.del(Api.bucket(bucket, '/quota')), 'Quota removed.')}
                  >
                    Remove quota
                  </Button>
                ) : null}
              </div>
            </form>
          </>
        )}
      </Loaded>
      {error ? <ErrorNote message={error} /> : null}
    </Card>
  );
}
