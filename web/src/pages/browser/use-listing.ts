// The object browser's listing: pages of one prefix (objects and folders, or every version), fetched with the
// API's cursor as the list is scrolled, so 100,000 keys under one prefix cost one page per 1,000 rows seen.

import { useCallback, useEffect, useRef, useState } from 'react';
import { api, Api } from '../../api';
import type { BrowsePage, ListedObject, ObjectVersion, VersionsPage } from '../../api/types';
import { isFolderMarker } from '../../lib/object-keys';

export type Row =
  | { kind: 'folder'; id: string; prefix: string }
  | { kind: 'object'; id: string; object: ListedObject }
  | { kind: 'version'; id: string; version: ObjectVersion };

export interface Listing {
  rows: Row[];
  done: boolean;
  loading: boolean;
  error: unknown;
  loadMore: () => void;
  reload: () => void;
}

const PAGE = 1000;

/** Merges a page's folders and objects into one list in key order (the order S3 lists them). */
export function mergePage(objects: Row[], folders: Row[]): Row[] {
  const key = (r: Row): string => (r.kind === 'folder' ? r.prefix : r.kind === 'object' ? r.object.key : r.version.key);
  return [...folders, ...objects].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export function useListing(bucket: string, prefix: string, versions: boolean): Listing {
  const [rows, setRows] = useState<Row[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const [done, setDone] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);
  const inflight = useRef<AbortController | undefined>(undefined);
  const generationRef = useRef(0);

  const fetchPage = useCallback(
    async (after: string | undefined, gen: number) => {
      inflight.current?.abort();
      const ctrl = new AbortController();
      inflight.current = ctrl;
      setLoading(true);
      try {
        const query = { prefix, delimiter: '/', cursor: after, limit: PAGE };
        let page: Row[];
        let next: string | undefined;
        if (versions) {
          const res = await api.get<VersionsPage>(Api.bucket(bucket, '/objects/versions'), query, ctrl.signal);
          page = mergePage(
            res.versions
              .filter((v) => !isFolderMarker(v.key, prefix))
              .map((v) => ({ kind: 'version' as const, id: `v:${v.key}\u0000${v.versionId}`, version: v })),
            res.prefixes.map((p) => ({ kind: 'folder' as const, id: `p:${p}`, prefix: p })),
          );
          next = res.nextCursor;
        } else {
          const res = await api.get<BrowsePage>(Api.bucket(bucket, '/objects'), query, ctrl.signal);
          page = mergePage(
            res.objects
              .filter((o) => !isFolderMarker(o.key, prefix))
              .map((o) => ({ kind: 'object' as const, id: `o:${o.key}`, object: o })),
            res.prefixes.map((p) => ({ kind: 'folder' as const, id: `p:${p}`, prefix: p })),
          );
          next = res.nextCursor;
        }
        if (ctrl.signal.aborted || gen !== generationRef.current) return;
        setRows((r) => (after === undefined ? page : [...r, ...page]));
        setCursor(next);
        setDone(next === undefined);
        setError(undefined);
      } catch (err) {
        if (!ctrl.signal.aborted) setError(err);
      } finally {
        if (!ctrl.signal.aborted) setLoading(false);
      }
    },
    [bucket, prefix, versions],
  );

  useEffect(() => {
    generationRef.current = generation;
    setRows([]);
    setCursor(undefined);
    setDone(false);
    void fetchPage(undefined, generation);
    return () => inflight.current?.abort();
  }, [fetchPage, generation]);

  const loadMore = useCallback(() => {
    if (!done && !loading && cursor !== undefined && error === undefined) void fetchPage(cursor, generationRef.current);
  }, [done, loading, cursor, error, fetchPage]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { rows, done, loading, error, loadMore, reload };
}
