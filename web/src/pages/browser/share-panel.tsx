// A share link: a presigned S3 GET URL with a chosen expiry, signed by a key made for that link alone, so it can be
// revoked (docs/console.md "Share links"). Anyone holding it can download the object until it expires or is revoked.
// The console shows it as text to copy and never opens it itself. Read-only admins may share too.

import { useState } from 'react';
import { api, Api } from '../../api';
import type { Presigned } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { formatTime } from '../../lib/format';
import { Button, SelectField } from '../../ui/controls';
import { CopyButton } from '../../ui/copy';
import { ErrorNote } from '../../ui/feedback';
import { ShareLinksTable } from '../keys/share-links-table';

const EXPIRIES = [
  { value: '900', label: '15 minutes' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '1 day' },
  { value: '604800', label: '7 days (the longest)' },
];

export function SharePanel({
  bucket,
  objectKey,
  versionId,
}: {
  bucket: string;
  objectKey: string;
  versionId?: string;
}) {
  const [expires, setExpires] = useState('3600');
  const [link, setLink] = useState<Presigned>();
  const [created, setCreated] = useState(0);
  const {
    run: create,
    busy,
    error,
  } = useAction(async () => {
    setLink(
      await api.post<Presigned>(Api.bucket(bucket, '/objects/presign'), {
        key: objectKey,
        method: 'GET',
        expiresIn: Number(expires),
        ...(versionId ? { versionId } : {}),
      }),
    );
    setCreated((n) => n + 1);
  });
  return (
    <div className="stack">
      <p className="muted">
        Anyone with the link can download {versionId ? 'this version of ' : ''}the object until the link expires or is
        revoked below. It is signed by a key made for this link alone, which can read nothing else.
      </p>
      <div className="form-row">
        <SelectField
          label="Link expires after"
          value={expires}
          onChange={(e) => setExpires(e.target.value)}
          options={EXPIRIES}
        />
      </div>
      <div>
        <Button variant="primary" icon="link" busy={busy} onClick={() => void create()}>
          Create share link
        </Button>
      </div>
      {error ? <ErrorNote message={error} /> : null}
      {link ? (
        <div className="stack-sm">
          <label className="secret-label">
            <span>Share link (expires {formatTime(link.expiresAt)})</span>
            <input className="input mono share-url" readOnly value={link.url} onFocus={(e) => e.target.select()} />
          </label>
          <div>
            <CopyButton text={link.url} label="Copy link" />
          </div>
        </div>
      ) : null}
      <ShareLinksTable title="Live links to this object" bucket={bucket} objectKey={objectKey} reloadKey={created} />
    </div>
  );
}
