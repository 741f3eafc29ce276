import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { DataDirectoryLock } from './data-dir-lock.js';

/**
 * PostgreSQL's defaults are sized for a server, and here they live in this process's
 * WebAssembly memory, which never shrinks. 16 MB of shared buffers (not 128) take well over
 * 100 MB off the idle RSS; 16 MB for an index build or VACUUM (not 64) bounds what one such
 * statement can add for good. The WAL buffers follow shared_buffers. docs/performance.md,
 * "Memory", has the figures.
 */
const SMALL_MEMORY = ['-c', 'shared_buffers=16MB', '-c', 'maintenance_work_mem=16MB'];

/**
 * The contrib extensions the migrations create (pet search: trigrams for typos, accents
 * folded). PGlite ships them as bundles that must be handed to it here, before
 * `CREATE EXTENSION` can find them.
 */
const EXTENSIONS = { pg_trgm, unaccent };

/**
 * PGlite (PostgreSQL compiled to WebAssembly) behind a loopback socket, so that the app
 * talks to it through the same `pg` driver, SQL and migrations as to a real server.
 * PGlite is single-session: the socket server accepts one connection and the pool that
 * uses it must hold at most one, which also keeps transactions from interleaving. The data
 * directory is locked while it is open: every process that opens it (service, seed, CLI,
 * migrations) comes through here.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly lock: DataDirectoryLock,
    readonly url: string,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    const lock = DataDirectoryLock.acquire(dataDir);
    try {
      const dir = join(resolve(dataDir), 'pgdata');
      await mkdir(dir, { recursive: true });
      const db = await PGlite.create(dir, {
        startParams: [...PGlite.defaultStartParams, ...SMALL_MEMORY],
        extensions: EXTENSIONS,
      });
      const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
      await server.start();
      return new EmbeddedPostgres(
        db,
        server,
        lock,
        `postgres://postgres@${server.getServerConn()}/postgres`,
      );
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  async stop(): Promise<void> {
    try {
      await this.server.stop();
      await this.db.close();
    } finally {
      this.lock.release();
    }
  }
}
