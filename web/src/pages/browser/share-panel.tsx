// A share link: a presigned S3 GET URL with a chosen expiry. Anyone holding it can download the object until it
// expires. The console shows it as text to copy and never opens it itself.

import { useState } from 'react';
import { api, Api } from '../../api';
import type { Presigned } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useCanWrite } from '../../hooks/use-session';
import { formatTime } from '../../lib/format';
import { Button, SelectField } from '../../ui/controls';
import { CopyButton } from '../../ui/copy';
import { ErrorNote } from '../../ui/feedback';

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
  });
  const canWrite = useCanWrite();
  if (!canWrite)
    return <p className="muted">Share links are signed with the root key; only full admins can create them.</p>;
  return (
    <div className="stack">
      <p className="muted">
        Anyone with the link can download {versionId ? 'this version of ' : ''}the object until the link expires. It
        cannot be revoked early except by rotating the root key.
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
        <Button variant="primary" icon="link" write busy={busy} onClick={() => void create()}>
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
    </div>
  );
}
