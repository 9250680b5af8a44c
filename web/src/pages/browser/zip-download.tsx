// "Download .zip": the selected objects and folders, or with nothing selected the folder being browsed, as one .zip
// built by the server while it streams (docs/console.md, "Download as zip"). The admin API checks the selection and
// answers a one-time link; the browser opens it itself, so the archive goes to disk through its download manager
// instead of being gathered in page memory. Versions (the versions view) are not zipped: only current objects.

import { api, Api } from '../../api';
import { describeError } from '../../api/errors';
import { useAction } from '../../hooks/use-action';
import { formatBytes, formatCount } from '../../lib/format';
import { Button } from '../../ui/controls';
import { useToast } from '../../ui/feedback';
import type { Row } from './use-listing';

interface ZipLink {
  url: string;
  objects: number;
  bytes: number;
}

/** The keys and folders of a selection, or undefined when it holds versions (which are not zipped). */
function selectedItems(rows: readonly Row[]): string[] | undefined {
  const items: string[] = [];
  for (const r of rows) {
    if (r.kind === 'version') return undefined;
    items.push(r.kind === 'folder' ? r.prefix : r.object.key);
  }
  return items;
}

export function ZipDownloadButton({ bucket, prefix, rows }: { bucket: string; prefix: string; rows: readonly Row[] }) {
  const { notify } = useToast();
  const items = selectedItems(rows);
  const { run, busy } = useAction(async () => {
    if (items === undefined) return;
    try {
      // No selection: the whole folder being browsed (the whole bucket at its root).
      const body = items.length === 0 ? { base: prefix } : { base: prefix, items };
      const link = await api.post<ZipLink>(Api.bucket(bucket, '/objects/zip'), body);
      const a = document.createElement('a');
      a.href = link.url;
      a.rel = 'noopener';
      document.body.append(a);
      a.click();
      a.remove();
      notify(`Downloading ${formatCount(link.objects)} objects (${formatBytes(link.bytes)}) as a .zip`);
    } catch (err) {
      notify(`The .zip was not made: ${describeError(err)}`, 'error');
    }
  });
  const label = rows.length > 0 ? `Download .zip (${rows.length})` : 'Download folder as .zip';
  return (
    <Button
      icon="download"
      busy={busy}
      disabled={items === undefined}
      title={items === undefined ? 'Versions cannot be zipped: switch off "Show versions"' : undefined}
      onClick={() => void run()}
    >
      {label}
    </Button>
  );
}
