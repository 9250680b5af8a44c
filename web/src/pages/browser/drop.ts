// Files from a drop or a file input, with their paths relative to what was dropped (a dropped folder's files keep
// their sub-folders). Directory entries are read with the File and Directory Entries API.

export interface PickedFile {
  file: File;
  path: string;
}

function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => {
    const all: FileSystemEntry[] = [];
    const next = (): void =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

async function walk(entry: FileSystemEntry, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, path: entry.fullPath.replace(/^\//, '') });
  } else if (entry.isDirectory) {
    for (const child of await readAll((entry as FileSystemDirectoryEntry).createReader())) await walk(child, out);
  }
}

/**
 * Everything a drop carries. Must be called inside the drop event (the DataTransfer is emptied after it); the
 * folders are read afterwards.
 */
export function filesFromDrop(dt: DataTransfer): Promise<PickedFile[]> {
  const items = [...dt.items].filter((i) => i.kind === 'file');
  const entries = items.map((i) => ({ entry: i.webkitGetAsEntry?.() ?? null, file: i.getAsFile() }));
  return (async () => {
    const out: PickedFile[] = [];
    for (const { entry, file } of entries) {
      if (entry) await walk(entry, out);
      else if (file) out.push({ file, path: file.webkitRelativePath || file.name });
    }
    return out;
  })();
}

/** Files chosen with an <input type=file> (a folder input gives each its relative path). */
export function filesFromInput(list: FileList | null): PickedFile[] {
  return [...(list ?? [])].map((file) => ({ file, path: file.webkitRelativePath || file.name }));
}
