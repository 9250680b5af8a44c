// Default encryption (the S3 configuration). Every object is encrypted at rest with the server's key whatever this
// says; the setting is what S3 clients see and ask for.

import { deleteConfig, getConfig, putConfig } from '../../api/configs';
import type { EncryptionConfig } from '../../api/types';
import { useAction } from '../../hooks/use-action';
import { useResource } from '../../hooks/use-resource';
import { Button } from '../../ui/controls';
import { ErrorNote, Loaded, useToast } from '../../ui/feedback';
import { Badge, Card } from '../../ui/layout';

export function EncryptionSettings({ bucket }: { bucket: string }) {
  const config = useResource((signal) => getConfig<EncryptionConfig>(bucket, 'encryption', signal), [bucket]);
  const { notify } = useToast();
  const { run, busy, error } = useAction(async (fn: () => Promise<unknown>, done: string) => {
    await fn();
    notify(done);
    config.reload();
  });
  return (
    <Card title="Default encryption">
      <p className="muted">
        Objects are always encrypted at rest (SSE-S3, AES-256) with this server's key. The bucket's default encryption
        configuration is what S3 clients read back.
      </p>
      <Loaded resource={config} feature="Encryption">
        {(c) => (
          <>
            <p>
              Default encryption:{' '}
              {c ? (
                <Badge tone="ok">
                  {c.sseAlgorithm}
                  {c.bucketKeyEnabled ? ', bucket key' : ''}
                </Badge>
              ) : (
                <Badge>not set</Badge>
              )}
            </p>
            <div className="actions">
              {!c ? (
                <Button
                  variant="primary"
                  write
                  busy={busy}
                  onClick={() =>
                    void run(
                      () => putConfig(bucket, 'encryption', { sseAlgorithm: 'AES256' }),
                      'Default encryption set.',
                    )
                  }
                >
                  Set SSE-S3 (AES256)
                </Button>
              ) : null}
              {c ? (
                <Button
                  write
                  busy={busy}
                  onClick={() =>
                    void run(() => deleteConfig(bucket, 'encryption'), 'Default encryption configuration removed.')
                  }
                >
                  Remove the configuration
                </Button>
              ) : null}
            </div>
          </>
        )}
      </Loaded>
      {error ? <ErrorNote message={error} /> : null}
    </Card>
  );
}
