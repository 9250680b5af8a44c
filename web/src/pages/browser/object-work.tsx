// The browser toolbar's everyday object work on the selection: copy, move, edit metadata, and the size of the folder
// shown; and the dialogs they open (transfer-dialog.tsx, metadata-dialog.tsx).

import { useState } from 'react';
import type { ObjectInfo } from '../../api/types';
import { formatCount } from '../../lib/format';
import { folderOf } from '../../lib/object-work';
import { Button } from '../../ui/controls';
import { useToast } from '../../ui/feedback';
import { FolderSize } from './folder-size';
import { MetadataDialog } from './metadata-dialog';
import { TransferDialog } from './transfer-dialog';
import type { Row } from './use-listing';

/** What the person asked to do with the selection. */
export interface ObjectWork {
  kind: 'copy' | 'move' | 'metadata';
  rows: Row[];
}

interface ButtonsProps {
  bucket: string;
  prefix: string;
  selected: Row[];
  /** Versions cannot be copied or edited from the versions view: the buttons are left out there. */
  versionsView: boolean;
  onWork: (work: ObjectWork) => void;
}

export function ObjectWorkButtons({ bucket, prefix, selected, versionsView, onWork }: ButtonsProps) {
  const n = selected.length ? ` (${formatCount(selected.length)})` : '';
  const none = selected.length === 0;
  return (
    <>
      {versionsView ? null : (
        <>
          <Button icon="copy" write disabled={none} onClick={() => onWork({ kind: 'copy', rows: selected })}>
            Copy{n}
          </Button>
          <Button write disabled={none} onClick={() => onWork({ kind: 'move', rows: selected })}>
            Move{n}
          </Button>
          <Button write disabled={none} onClick={() => onWork({ kind: 'metadata', rows: selected })}>
            Edit metadata{n}
          </Button>
        </>
      )}
      <FolderSize key={`${bucket}/${prefix}`} bucket={bucket} prefix={prefix} name={prefix || bucket} />
    </>
  );
}

interface DialogsProps {
  bucket: string;
  prefix: string;
  work: ObjectWork | undefined;
  onClose: () => void;
  onDone: (summary: string) => void;
}

export function ObjectWorkDialogs({ bucket, prefix, work, onClose, onDone }: DialogsProps) {
  if (work === undefined) return null;
  if (work.kind === 'metadata') {
    return <MetadataDialog bucket={bucket} rows={work.rows} onClose={onClose} onDone={onDone} />;
  }
  return (
    <TransferDialog
      bucket={bucket}
      prefix={prefix}
      mode={work.kind}
      rows={work.rows}
      onClose={onClose}
      onDone={(summary) => onDone(summary)}
    />
  );
}

/** The object details' rename, copy or move, and metadata buttons, and their dialogs. */
export function ObjectActions({
  bucket,
  info,
  onChanged,
  onMoved,
}: {
  bucket: string;
  info: ObjectInfo;
  onChanged: () => void;
  /** The object now lives at another key (or bucket). */
  onMoved: (to: { bucket: string; key: string }) => void;
}) {
  const [open, setOpen] = useState<'rename' | 'copy' | 'move' | 'metadata'>();
  const { notify } = useToast();
  if (!info.isLatest) return null;
  const close = (): void => setOpen(undefined);
  return (
    <>
      <Button write onClick={() => setOpen('rename')}>
        Rename
      </Button>
      <Button icon="copy" write onClick={() => setOpen('copy')}>
        Copy
      </Button>
      <Button write onClick={() => setOpen('move')}>
        Move
      </Button>
      <Button write onClick={() => setOpen('metadata')}>
        Edit metadata
      </Button>
      {open === 'metadata' ? (
        <MetadataDialog
          bucket={bucket}
          info={info}
          onClose={close}
          onDone={(summary) => {
            notify(summary);
            onChanged();
          }}
        />
      ) : open !== undefined ? (
        <TransferDialog
          bucket={bucket}
          prefix={folderOf(info.key)}
          mode={open}
          objectKey={info.key}
          onClose={close}
          onDone={(summary, moved) => {
            notify(summary);
            if (moved) onMoved(moved);
            else onChanged();
          }}
        />
      ) : null}
    </>
  );
}
