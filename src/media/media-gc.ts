import { Inject, Injectable } from '@nestjs/common';
import { MediaRepository } from './media.repository.js';
import { MEDIA_STORAGE, type MediaStorage, type StoredKey } from './storage/media-storage.js';

export interface MediaGcOptions {
  /** Delete what is found; otherwise only report it. */
  delete: boolean;
  /** Only objects written at least this long ago: younger ones may belong to an upload in progress. */
  minAgeMs: number;
}

interface MediaGcResult {
  scanned: number;
  orphaned: number;
  deleted: number;
}

// Keys checked against the database per query.
const BATCH = 500;

/**
 * Finds stored objects that no image row names (left behind by a crash between storing and
 * committing, or between committing a delete and removing the files) and deletes them when
 * asked. Reports every orphan and its progress through `report`, one line each.
 */
@Injectable()
export class MediaGc {
  constructor(
    private readonly images: MediaRepository,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
  ) {}

  async run(options: MediaGcOptions, report: (line: string) => void): Promise<MediaGcResult> {
    const result: MediaGcResult = { scanned: 0, orphaned: 0, deleted: 0 };
    const cutoff = Date.now() - options.minAgeMs;
    let batch: StoredKey[] = [];
    const flush = async () => {
      for (const orphan of await this.unreferenced(batch)) {
        result.orphaned += 1;
        if (!options.delete) {
          report(`orphan ${orphan.key} (written ${orphan.modifiedAt.toISOString()})`);
          continue;
        }
        await this.storage.delete(orphan.key);
        result.deleted += 1;
        report(`deleted ${orphan.key} (written ${orphan.modifiedAt.toISOString()})`);
      }
      report(`scanned ${result.scanned} objects, ${result.orphaned} orphaned`);
      batch = [];
    };
    for await (const object of this.storage.list()) {
      result.scanned += 1;
      if (object.modifiedAt.getTime() <= cutoff) batch.push(object);
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    return result;
  }

  private async unreferenced(objects: StoredKey[]): Promise<StoredKey[]> {
    if (objects.length === 0) return [];
    const referenced = await this.images.referencedKeys(objects.map((object) => object.key));
    return objects.filter((object) => !referenced.has(object.key));
  }
}
