import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { messageOf } from '../src/common/errors/message-of.js';

/**
 * What the baselines share: a node:http server on `PORT` and one pg pool on
 * `DATABASE_URL`, as large as the app's default (DATABASE_POOL_MAX 10).
 */
// int8 ids and sums come back as numbers, as the app's `parseInt8` makes them.
pg.types.setTypeParser(20, Number);
export const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

export async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

// pg refuses one name for two texts: the name is the text's hash.
export const named = (text: string, values: unknown[]): pg.QueryConfig => ({
  name: `raw_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`,
  text,
  values,
});

/** Answered with its status; the app's ApiException has the same `getStatus()`. */
export class HttpError extends Error {
  constructor(
    private readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }

  getStatus(): number {
    return this.status;
  }
}

export function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

export function serve(
  name: string,
  handle: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>,
): void {
  const server = createServer((req, res) => {
    handle(req, res, new URL(req.url ?? '/', 'http://bench')).catch((error: unknown) => {
      const status = (error as Partial<HttpError>).getStatus?.() ?? 500;
      const code = status === 500 ? 'INTERNAL_ERROR' : (error as HttpError).code;
      send(res, status, { code, message: messageOf(error) });
    });
  });
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    console.log(
      `${name} listening on ${typeof address === 'object' && address ? address.port : ''}`,
    );
  });
  process.on('SIGTERM', () => server.close(() => void pool.end()));
}

/** The guard-stack scenario's yardstick: the same route with nothing behind it. */
export const BARE_RATE_LIMIT = { tier: 'user', windows: [] };
