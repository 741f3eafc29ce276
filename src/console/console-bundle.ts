import { Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * Where `npm run build` writes the console (console/build.js). Resolved from this file, so
 * that the compiled service (dist/console/) and the tests running the sources (src/console/)
 * find the same directory.
 */
export const CONSOLE_BUILD_DIR = resolve(import.meta.dirname, '../../dist/console-app');

// The build names every asset after its content hash; nothing else of the disk is served.
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css|svg)$/;

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

  hasAsset(name: string): boolean {
    return ASSET_NAME.test(name) && existsSync(join(this.assetsDir, name));
  }
}
