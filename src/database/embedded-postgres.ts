import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PGlite (PostgreSQL compiled to WebAssembly) behind a loopback socket, so that the app
 * talks to it through the same `pg` driver, SQL and migrations as to a real server.
 * PGlite is single-session: the socket server accepts one connection and the pool that
 * uses it must hold at most one, which also keeps transactions from interleaving.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    const dir = join(resolve(dataDir), 'pgdata');
    await mkdir(dir, { recursive: true });
    const db = await PGlite.create(dir);
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
    await server.start();
    return new EmbeddedPostgres(
      db,
      server,
      `postgres://postgres@${server.getServerConn()}/postgres`,
    );
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
