// "New folder": an empty marker object "<path>/" (as the AWS console makes), a path such as a/b accepted.

import { useState } from 'react';
import { api, Api } from '../../api';
import { useAction } from '../../hooks/use-action';
import { folderNameProblem, folderPath } from '../../lib/object-keys';
import { browseRoute, navigate } from '../../router';
import { Button, TextField } from '../../ui/controls';
import { Dialog } from '../../ui/dialog';

export function NewFolderDialog({ bucket, prefix, onClose }: { bucket: string; prefix: string; onClose: () => void }) {
  const [name, setName] = useState('');
  const problem = folderNameProblem(name);
  const {
    run: create,
    busy,
    error,
    setError,
  } = useAction(async () => {
    // Like the AWS console: an empty object named "<folder>/" keeps the folder while it holds nothing; for "a/b"
    // only "a/b/" is written (the folder a/ exists because a/b/ is in it). The browser hides the marker itself.
    const folder = `${prefix}${folderPath(name)}/`;
    await api.call('PUT', Api.bucket(bucket, '/objects/content'), {
      query: { key: folder },
      body: new Blob([]),
      headers: { 'content-type': 'application/x-directory' },
    });
    onClose();
    navigate(browseRoute(bucket, folder));
  });
  const submit = async (): Promise<void> => {
    if (problem) {
      setError(problem);
      return;
    }
    await create();
  };
  return (
    <Dialog
      title="New folder"
      onClose={onClose}
      onSubmit={() => void submit()}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" write busy={busy}>
            Create folder
          </Button>
        </>
      }
    >
      <TextField
        label="Folder name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        autoFocus
        error={error}
        hint={`Created in ${bucket}/${prefix}. A path such as a/b makes the folders inside each other.`}
      />
    </Dialog>
  );
}
