import type { Readable } from 'node:stream';
import { isMediaKey } from '../media-key.js';

export const MEDIA_STORAGE = Symbol('MediaStorage');

export interface StoredObject {
  body: Readable;
  size: number;
}

/** Where image bytes live. Keys are checked against the key grammar by every method. */
export interface MediaStorage {
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** `undefined` when there is no such object. */
  get(key: string): Promise<StoredObject | undefined>;
  exists(key: string): Promise<boolean>;
  /** Succeeds when the object is already gone. */
  delete(key: string): Promise<void>;
  /** Every stored object named by a media key, with when it was written. */
  list(): AsyncIterable<StoredKey>;
}

export interface StoredKey {
  key: string;
  modifiedAt: Date;
}

export const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Callers validate too; this is the last line before a path or an object name is built. */
export function assertStorageKey(key: string): void {
  if (!isMediaKey(key)) throw new Error(`Refusing malformed media key ${JSON.stringify(key)}`);
}
