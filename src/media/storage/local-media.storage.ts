import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isMediaKey } from '../media-key.js';
import {
  assertStorageKey,
  type MediaStorage,
  type StoredKey,
  type StoredObject,
} from './media-storage.js';

const isMissing = (error: unknown) => (error as { code?: string }).code === 'ENOENT';

/** A directory on this machine, fanned out by the key's first two characters. */
export class LocalMediaStorage implements MediaStorage {
  private readonly root: string;

  constructor(directory: string) {
    this.root = resolve(directory);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    // Written aside, then renamed: a reader never sees half a file under the real key.
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const file = await open(temporary, 'wx');
      try {
        await file.writeFile(data);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const file = await open(this.pathOf(key), 'r');
      try {
        const { size } = await file.stat();
        return { body: file.createReadStream(), size };
      } catch (error) {
        await file.close();
        throw error;
      }
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async *list(): AsyncIterable<StoredKey> {
    const fans = await readdir(this.root, { withFileTypes: true }).catch((error: unknown) => {
      if (isMissing(error)) return [];
      throw error;
    });
    for (const fan of fans.filter((entry) => entry.isDirectory())) {
      for (const name of await readdir(join(this.root, fan.name))) {
        if (!isMediaKey(name) || !name.startsWith(fan.name)) continue;
        const { mtime } = await stat(join(this.root, fan.name, name));
        yield { key: name, modifiedAt: mtime };
      }
    }
  }

  private pathOf(key: string): string {
    assertStorageKey(key);
    return join(this.root, key.slice(0, 2), key);
  }
}
