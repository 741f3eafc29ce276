import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { listPetsQuery, SELECT_PET_BY_ID, type PetRow } from '../src/pets/pets.repository.js';
import { toPetResponse } from '../src/pets/pet.mapper.js';
import type { PetStatus } from '../src/pets/pet-status.js';

/**
 * The yardstick for `npm run bench`: node:http and pg, no framework, authentication,
 * rate limiting or validation, serving the same responses from the same SQL (the app's
 * own query builders and mapper) on the same database and indexes.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
pg.types.setTypeParser(20, Number);

const INSERT_PET = `INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3)
  RETURNING id, name, status, photo_urls AS "photoUrls", age, breed, description,
            created_at AS "createdAt", updated_at AS "updatedAt"`;
const UPDATE_PET = `UPDATE pets SET name = $2, updated_at = clock_timestamp() WHERE id = $1
  RETURNING id, name, status, photo_urls AS "photoUrls", age, breed, description,
            created_at AS "createdAt", updated_at AS "updatedAt"`;

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://baseline');
  const byId = /^\/v1\/pets\/(\d+)$/.exec(url.pathname);
  if (req.method === 'GET' && url.pathname === '/v1/pets') {
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const { sql, params } = listPetsQuery({
      category: url.searchParams.get('category') ?? undefined,
      status: (url.searchParams.get('status') as PetStatus | null) ?? undefined,
      limit,
      offset,
    });
    const { rows } = await pool.query<PetRow & { total: number }>(sql, params);
    const total = rows[0]?.total ?? 0;
    return send(res, 200, {
      pets: rows.map(toPetResponse),
      pagination: { limit, offset, total, hasMore: offset + rows.length < total },
    });
  }
  if (req.method === 'GET' && byId) {
    const { rows } = await pool.query<PetRow>(SELECT_PET_BY_ID, [byId[1]]);
    return rows[0]
      ? send(res, 200, toPetResponse(rows[0]))
      : send(res, 404, { code: 'PET_NOT_FOUND' });
  }
  if (req.method === 'POST' && url.pathname === '/v1/pets') {
    const body = await readJson(req);
    const { rows } = await pool.query(INSERT_PET, [body.name, body.categoryId, body.status]);
    return send(res, 201, rows[0]);
  }
  if (req.method === 'PUT' && byId) {
    const body = await readJson(req);
    const { rows } = await pool.query(UPDATE_PET, [byId[1], body.name]);
    return send(res, 200, rows[0]);
  }
  if (req.method === 'GET' && url.pathname === '/v1/rate-limit') {
    return send(res, 200, { tier: 'user', windows: [] });
  }
  send(res, 404, { code: 'NOT_FOUND' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) =>
    send(res, 500, { code: 'INTERNAL_ERROR', message: String(error) }),
  );
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(
    `baseline listening on ${typeof address === 'object' && address ? address.port : ''}`,
  );
});
process.on('SIGTERM', () => server.close(() => void pool.end()));
