// A folder's object count and total size, summed on the server when asked (GET /objects/summary): the count stops at
// the server's bound, and the answer says so (docs/console.md "Folder sizes"). The buttons say "Count": the list's
// sort header is the one button named "Size".

import { useState } from 'react';
import { api, Api, describeError } from '../../api';
import type { PrefixSummary } from '../../api/object-work';
import { describeSummary, summaryLines } from '../../lib/object-work';

interface Props {
  bucket: string;
  prefix: string;
  /** The folder's name, for the button's accessible name. */
  name: string;
  /** In a list cell (two short lines) or on a line of its own (one sentence). */
  inCell?: boolean;
}

export function FolderSize({ bucket, prefix, name, inCell }: Props) {
  const [state, setState] = useState<{ busy: boolean; summary?: PrefixSummary; error?: string }>({ busy: false });
  const calculate = (): void => {
    setState({ busy: true });
    api
      .get<PrefixSummary>(Api.bucket(bucket, '/objects/summary'), { prefix })
      .then((summary) => setState({ busy: false, summary }))
      .catch((err: unknown) => setState({ busy: false, error: `Could not count: ${describeError(err)}` }));
  };
  const { summary, error } = state;
  if (summary !== undefined || error !== undefined) {
    const sentence = summary ? describeSummary(summary) : (error ?? '');
    if (!inCell || !summary) {
      return (
        <span className={inCell ? 'folder-size folder-size-cell' : 'folder-size'} role="status" title={sentence}>
          {inCell ? 'Could not count' : `${name}: ${sentence}`}
          {inCell ? <span className="visually-hidden">{sentence}</span> : null}
        </span>
      );
    }
    const [count, bytes] = summaryLines(summary);
    return (
      <span className="folder-size folder-size-cell" role="status" title={sentence}>
        <span aria-hidden="true">{count}</span>
        <span aria-hidden="true">{bytes}</span>
        <span className="visually-hidden">{`${name}: ${sentence}`}</span>
      </span>
    );
  }
  return (
    <button
      type="button"
      className="btn btn-ghost btn-small"
      aria-label={`Count objects in ${name}`}
      aria-busy={state.busy || undefined}
      disabled={state.busy}
      onClick={calculate}
    >
      {state.busy ? 'Counting…' : inCell ? 'Count' : 'Count objects'}
    </button>
  );
}
