import { Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * Where `npm run build` writes the console (console/build.js). Resolved from this file, so
 * that the compiled service (dist/console-host/) and the tests running the sources (src/console-host/)
 * find the same directory.
 */
export const CONSOLE_BUILD_DIR = resolve(import.meta.dirname, '../../dist/console-app');

// The kinds of file the build writes, each named after its content hash
// (`main-XXXXXXXX.js`); nothing else of the disk is served.
const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};
const ASSET_NAME = /^[A-Za-z0-9_-]+\.([a-z]+)$/;

/**
 * The built console on disk. Read on each request rather than once, so that a rebuild
 * (`npm run console:watch`) shows without restarting the service; the page is small.
 */
@Injectable()
export class ConsoleBundle {
  readonly assetsDir = join(CONSOLE_BUILD_DIR, 'assets');

  /** The page, or undefined when the console has not been built. */
  async page(): Promise<string | undefined> {
    try {
      return await readFile(join(CONSOLE_BUILD_DIR, 'index.html'), 'utf8');
    } catch {
      return undefined;
    }
  }

  /** The Content-Type of a built asset, or undefined when no such asset is served. */
  contentTypeOf(name: string): string | undefined {
    const extension = ASSET_NAME.exec(name)?.[1];
    if (!extension || !Object.hasOwn(CONTENT_TYPES, extension)) return undefined;
    return existsSync(join(this.assetsDir, name)) ? CONTENT_TYPES[extension] : undefined;
  }
}
