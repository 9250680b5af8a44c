// Uploads in progress: a queue of files sent two at a time, each with its own progress, cancellable, retryable.

import { useSyncExternalStore } from 'react';
import { transfers } from '../../api';
import { describeError } from '../../api/errors';
import { isMultipart } from '../../lib/upload-plan';

export type UploadState = 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled';

export interface UploadTask {
  id: number;
  bucket: string;
  key: string;
  file: File;
  loaded: number;
  state: UploadState;
  error?: string;
  multipart: boolean;
}

const CONCURRENT_FILES = 2;

export class UploadQueue {
  private tasks: UploadTask[] = [];
  private readonly controllers = new Map<number, AbortController>();
  private readonly listeners = new Set<() => void>();
  private nextId = 1;

  constructor(private readonly onFileDone: (task: UploadTask) => void) {}

  readonly subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  readonly snapshot = (): UploadTask[] => this.tasks;

  private update(id: number, patch: Partial<UploadTask>): void {
    this.tasks = this.tasks.map((t) => (t.id === id ? { ...t, ...patch } : t));
    for (const l of this.listeners) l();
  }

  add(bucket: string, files: Array<{ key: string; file: File }>): void {
    const added = files.map(({ key, file }) => ({
      id: this.nextId++,
      bucket,
      key,
      file,
      loaded: 0,
      state: 'queued' as const,
      multipart: isMultipart(file.size),
    }));
    this.tasks = [...this.tasks, ...added];
    for (const l of this.listeners) l();
    this.pump();
  }

  cancel(id: number): void {
    this.controllers.get(id)?.abort();
    const task = this.tasks.find((t) => t.id === id);
    if (task?.state === 'queued') this.update(id, { state: 'cancelled' });
  }

  retry(id: number): void {
    this.update(id, { state: 'queued', loaded: 0, error: undefined });
    this.pump();
  }

  clearFinished(): void {
    this.tasks = this.tasks.filter((t) => t.state === 'queued' || t.state === 'uploading');
    for (const l of this.listeners) l();
  }

  private pump(): void {
    const running = this.tasks.filter((t) => t.state === 'uploading').length;
    for (const task of this.tasks.filter((t) => t.state === 'queued').slice(0, Math.max(0, CONCURRENT_FILES - running)))
      void this.run(task);
  }

  private async run(task: UploadTask): Promise<void> {
    const ctrl = new AbortController();
    this.controllers.set(task.id, ctrl);
    this.update(task.id, { state: 'uploading', loaded: 0 });
    try {
      await transfers.upload(
        { bucket: task.bucket, key: task.key, file: task.file },
        (p) => this.update(task.id, { loaded: p.loaded }),
        ctrl.signal,
      );
      this.update(task.id, { state: 'done', loaded: task.file.size });
      this.onFileDone(task);
    } catch (err) {
      const cancelled = err instanceof DOMException && err.name === 'AbortError';
      this.update(task.id, {
        state: cancelled ? 'cancelled' : 'failed',
        error: cancelled ? undefined : describeError(err),
      });
    } finally {
      this.controllers.delete(task.id);
      this.pump();
    }
  }
}

export function useUploads(queue: UploadQueue): UploadTask[] {
  return useSyncExternalStore(queue.subscribe, queue.snapshot);
}
