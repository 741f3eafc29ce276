import pg from 'pg';
import { QUERY_READ_TIMEOUT } from '../common/errors/database-errors.js';

// pg's own `query`, called with its client: pg takes forms its declared overloads do not list
// (a config object with values and a callback, which TypeORM's calls become here).
// eslint-disable-next-line @typescript-eslint/unbound-method -- always called with `this`
const pgQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;

/**
 * pg's Client, the class of every pooled connection (`extra.Client`), with the promise that
 * `query` returns made here and the query's callback given when pg creates the query. pg's
 * own promise sets that callback after creating the query, and its `query_timeout` replaces
 * it once more; a query whose callback was replaced keeps its rows alive through two of V8's
 * young-generation collections (measured with `--trace-gc-nvp`: 70 % of the rows survived
 * against none), so every result read was promoted and became old-generation garbage, which
 * only a full collection frees: one export of a million pets grew the process by 250 MB.
 *
 * The read timeout (`query_timeout`: the server has not answered at all, stopped or frozen)
 * is kept here for the same reason, with pg's message (QUERY_READ_TIMEOUT), which
 * database-errors.ts answers as unavailable; as pg's, it leaves the connection to the pool.
 */
export class PgClient extends pg.Client {
  private readonly readTimeoutMs: number;

  constructor(config: pg.ClientConfig) {
    super({ ...config, query_timeout: undefined });
    this.readTimeoutMs = config.query_timeout ?? 0;
  }

  // One signature for pg's dozen: a call with a callback or a submittable (a cursor) goes to
  // pg's `query` as it came; the others get the promise. It returns what pg's overloads do:
  // a promise, the submittable or nothing.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  override query(config: unknown, values?: unknown, callback?: unknown): any {
    const submittable = typeof (config as { submit?: unknown } | null)?.submit === 'function';
    if (submittable || typeof values === 'function' || typeof callback === 'function') {
      return pgQuery.call(this, config, values, callback);
    }
    return new Promise((resolve, reject) => {
      // Only bounds a wait: it keeps no process alive (a closed connection answers nothing).
      const timer =
        this.readTimeoutMs > 0
          ? setTimeout(() => reject(new Error(QUERY_READ_TIMEOUT)), this.readTimeoutMs).unref()
          : undefined;
      pgQuery.call(this, config, values, (error: Error | null, result: pg.QueryResult) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(result);
      });
    });
  }
}
