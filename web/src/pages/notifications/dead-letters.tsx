// A target's dead letters (deliveries that failed every attempt), oldest first, with "Retry all" after a confirmation
// and retry of one. A retried letter is pending again at once (docs/notifications.md "Delivery").

import { useState } from 'react';
import { api } from '../../api';
import type { DeadLetterPage } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { formatCount, formatTime } from '../../lib/format';
import { Button } from '../../ui/controls';
import { ConfirmDialog } from '../../ui/dialog';
import { Empty, ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { TableWrap } from '../../ui/layout';

export function DeadLetters(props: {
  target: string;
  /** The target's dead-letter count: the list is fetched again when it changes. */
  failed: number;
  onRetried: () => void;
}) {
  const { target, failed, onRetried } = props;
  const base = `/notification-targets/${encodeURIComponent(target)}/dead-letters`;
  const [cursor, setCursor] = useState<string>();
  const letters = useResource(
    (signal) => api.get<DeadLetterPage>(base, { cursor, limit: 100 }, signal),
    [base, cursor, failed],
  );
  const [confirming, setConfirming] = useState(false);
  const { notify } = useToast();
  const retry = async (id?: number): Promise<void> => {
    const res = await api.post<{ retried: number }>(`${base}/retry`, id === undefined ? {} : { id });
    notify(`${formatCount(res.retried)} ${res.retried === 1 ? 'delivery' : 'deliveries'} queued again.`);
    setCursor(undefined);
    letters.reload();
    onRetried();
  };
  const one = useAction(retry);
  return (
    <div className="stack-sm" data-dead-letters={target}>
      <div className="toolbar">
        <h3 className="subhead">Dead letters</h3>
        {letters.data && letters.data.items.length > 0 ? (
          <Button write onClick={() => setConfirming(true)}>
            Retry all
          </Button>
        ) : null}
      </div>
      <Loaded resource={letters} feature="Dead letters">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No dead letters: every delivery either arrived or is still being tried.</Empty>
          ) : (
            <>
              <TableWrap label={`Dead letters of ${target}`}>
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">Bucket</th>
                      <th scope="col">Key</th>
                      <th scope="col">Event</th>
                      <th scope="col" className="num">
                        Attempts
                      </th>
                      <th scope="col">Error</th>
                      <th scope="col">Failed</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.items.map((l) => (
                      <tr key={l.id}>
                        <td>{l.bucket}</td>
                        <td className="mono break">{l.key || '–'}</td>
                        <td>{l.eventName.replace(/^s3:/, '')}</td>
                        <td className="num">{l.attempts}</td>
                        <td>{l.lastError ?? '–'}</td>
                        <td>{formatTime(l.failedAt)}</td>
                        <td className="row-actions">
                          <Button
                            variant="ghost"
                            write
                            busy={one.busy}
                            onClick={() => void one.run(l.id)}
                            aria-label={`Retry ${l.eventName} of ${l.bucket}/${l.key}`}
                          >
                            Retry
                          </Button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              {d.nextCursor ? <Button onClick={() => setCursor(d.nextCursor ?? undefined)}>Next page</Button> : null}
            </>
          )
        }
      </Loaded>
      {one.error ? <ErrorNote message={one.error} /> : null}
      {confirming ? (
        <ConfirmDialog
          title={`Retry every dead letter of ${target}?`}
          confirmLabel="Retry all"
          onConfirm={() => retry()}
          onClose={() => setConfirming(false)}
        >
          <p>
            {formatCount(failed)} {failed === 1 ? 'delivery goes' : 'deliveries go'} back in the queue and are sent
            again at once, with a fresh set of attempts. The receiver may get a message it already has: it should dedupe
            on the delivery id.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
