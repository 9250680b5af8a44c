// Taking archives apart and putting (possibly hostile) ones together for restore tests: unzip into a map, zip a
// list of entries with yazl, and patch raw bytes (entry names, declared sizes) that yazl itself would refuse to write.

import yauzl from 'yauzl';
import yazl from 'yazl';

export type Entries = [name: string, bytes: Buffer, options?: { compress?: boolean }][];

/** Every entry of a zip, by name, in central-directory order. */
export async function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  const file = await yauzl.fromBufferPromise(zip, { lazyEntries: true });
  const out = new Map<string, Buffer>();
  for await (const entry of file.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await file.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    out.set(entry.fileName, Buffer.concat(chunks));
  }
  file.close();
  return out;
}

/** A zip of these entries, in order (stored unless `compress`). */
export function zip(entries: Entries): Promise<Buffer> {
  const file = new yazl.ZipFile();
  for (const [name, bytes, options] of entries)
    file.addBuffer(bytes, name, { compress: options?.compress ?? false, mtime: new Date(0) });
  file.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    file.outputStream.on('data', (c: Buffer) => chunks.push(c));
    file.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    file.outputStream.on('error', reject);
  });
}

/** Replaces every occurrence of an entry name (local header and central directory) with another of the same length. */
export function renameEntry(archive: Buffer, from: string, to: string): Buffer {
  const a = Buffer.from(from);
  const b = Buffer.from(to);
  if (a.length !== b.length) throw new Error('renameEntry needs names of the same byte length');
  const out = Buffer.from(archive);
  for (let at = out.indexOf(a); at !== -1; at = out.indexOf(a, at + 1)) b.copy(out, at);
  return out;
}

/** Sets the uncompressed size an entry declares in the central directory (what readers trust). */
export function patchDeclaredSize(archive: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(archive);
  const wanted = Buffer.from(name);
  const signature = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  for (let at = out.indexOf(signature); at !== -1; at = out.indexOf(signature, at + 4)) {
    const nameLength = out.readUInt16LE(at + 28);
    if (out.subarray(at + 46, at + 46 + nameLength).equals(wanted)) {
      out.writeUInt32LE(size, at + 24);
      return out;
    }
  }
  throw new Error(`no central directory entry named ${name}`);
}
