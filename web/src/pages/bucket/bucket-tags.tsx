// A bucket's tags.

import { deleteConfig, getConfig, putConfig } from '../../api/configs';
import type { Tag } from '../../api/types';
import { useResource } from '../../hooks/use-resource';
import { Loaded } from '../../ui/feedback';
import { Card } from '../../ui/layout';
import { TagEditor } from '../../ui/tag-editor';

export function BucketTags({ bucket }: { bucket: string }) {
  const tags = useResource((signal) => getConfig<{ tags: Tag[] }>(bucket, 'tagging', signal), [bucket]);
  return (
    <Card title="Tags">
      <Loaded resource={tags} feature="Tags">
        {(t) => (
          <TagEditor
            label="Bucket tags"
            initial={t?.tags ?? []}
            max={50}
            onSave={async (next) => {
              if (next.length === 0) await deleteConfig(bucket, 'tagging');
              else await putConfig(bucket, 'tagging', { tags: next });
            }}
          />
        )}
      </Loaded>
    </Card>
  );
}
