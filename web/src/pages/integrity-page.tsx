// Integrity: the scrubber's counts (ok, corrupt, unchecked), the pass in progress, the last full pass, "scrub now",
// and the list of corrupt object versions.

import { useState } from 'react';
import { api } from '../api';
import type { CorruptPage, IntegrityStatus } from '../api/types';
import { useAction } from '../hooks/use-action';
import { useInterval, useResource } from '../hooks/use-resource';
import { formatBytes, formatCount, formatTime } from '../lib/format';
import { integrityHealth } from '../lib/health';
import { browseRoute, Link } from '../router';
import { Button } from '../ui/controls';
import { Empty, ErrorNote, Loaded, NotAvailable, useToast } from '../ui/feedback';
import { Card, Facts, PageHeader, Stat, TableWrap } from '../ui/layout';

function Corrupt() {
  const [cursor, setCursor] = useState<string>();
  const corrupt = useResource(
    (signal) => api.get<CorruptPage>('/integrity/corrupt', { cursor, limit: 50 }, signal),
    [cursor],
  );
  return (
    <Card title="Corrupt versions">
      <Loaded resource={corrupt} feature="Corrupt objects">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No corrupt versions found.</Empty>
          ) : (
            <>
              <TableWrap label="Corrupt versions">
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">Object</th>
                      <th scope="col">Version</th>
                      <th scope="col" className="num">
                        Size
                      </th>
                      <th scope="col">Reason</th>
                      <th scope="col">Detected</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.items.map((i) => (
                      <tr key={`${i.bucket}/${i.key}/${i.versionId ?? ''}`}>
                        <td className="break">
                          <Link to={browseRoute(i.bucket)}>{i.bucket}</Link>/<span className="mono">{i.key}</span>
                        </td>
                        <td className="mono">{i.versionId ?? '–'}</td>
                        <td className="num">{formatBytes(i.size ?? 0)}</td>
                        <td>
                          {i.reason ?? '–'}
                          {i.detail ? `: ${i.detail}` : ''}
                        </td>
                        <td>{formatTime(i.detectedAt)}</td>
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
    </Card>
  );
}

export default function IntegrityPage() {
  const status = useResource((signal) => api.get<IntegrityStatus>('/integrity', undefined, signal), []);
  const { notify } = useToast();
  useInterval(status.reload, 2000, Boolean(status.data?.currentPass));
  const {
    run: scrub,
    busy,
    error,
  } = useAction(async () => {
    await api.post('/integrity/scrub');
    notify('Scrub started.');
    status.reload();
  });
  return (
    <>
      <PageHeader
        title="Integrity"
        subtitle="The scrubber reads every stored version back and checks it against its digest."
        actions={
          status.notAvailable ? null : (
            <Button
              variant="primary"
              write
              busy={busy}
              disabled={Boolean(status.data?.currentPass)}
              onClick={() => void scrub()}
            >
              Scrub now
            </Button>
          )
        }
      />
      {error ? <ErrorNote message={error} /> : null}
      {status.notAvailable ? (
        <NotAvailable feature="Integrity" />
      ) : (
        <>
          <Loaded resource={status} feature="Integrity">
            {(s) => (
              <>
                <div className="stats">
                  <Stat
                    label="Verified"
                    value={formatCount(s.counts?.ok ?? 0)}
                    tone={integrityHealth(s, Date.now()).tone}
                    detail={integrityHealth(s, Date.now()).value}
                  />
                  <Stat
                    label="Corrupt"
                    value={formatCount(s.counts?.corrupt ?? 0)}
                    tone={(s.counts?.corrupt ?? 0) > 0 ? 'bad' : (s.counts?.ok ?? 0) > 0 ? 'ok' : undefined}
                  />
                  <Stat
                    label="Not checked yet"
                    value={formatCount(s.counts?.unchecked ?? 0)}
                    tone={(s.counts?.unchecked ?? 0) > 0 ? 'warn' : undefined}
                    detail={(s.counts?.unchecked ?? 0) > 0 ? 'Never read back: run a scrub' : undefined}
                  />
                </div>
                <Card title="Passes">
                  {s.currentPass ? (
                    <div className="stack-sm">
                      <p>
                        A {s.currentPass.trigger ?? ''} pass is running:{' '}
                        {formatCount(s.currentPass.objectsChecked ?? 0)} of{' '}
                        {formatCount(s.currentPass.objectsTotal ?? 0)} versions checked.
                      </p>
                      <progress max={100} value={s.currentPass.percent ?? 0} aria-label="Scrub progress" />
                    </div>
                  ) : null}
                  <Facts
                    items={[
                      ['Scheduled scrubbing', s.enabled ? 'on' : 'off'],
                      ['Next scheduled pass', formatTime(s.nextPassAt)],
                      [
                        'Last full pass',
                        s.lastFullPass
                          ? `${formatTime(s.lastFullPass.finishedAt)}: ${formatCount(s.lastFullPass.objectsChecked ?? 0)} versions, ${formatCount(s.lastFullPass.corruptFound ?? 0)} corrupt`
                          : 'none yet',
                      ],
                      ['Repair from the replication target', s.repairAvailable ? 'available' : 'not available'],
                    ]}
                  />
                </Card>
              </>
            )}
          </Loaded>
          <Corrupt />
        </>
      )}
    </>
  );
}
