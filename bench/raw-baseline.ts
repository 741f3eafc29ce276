import { createHash } from 'node:crypto';
import type pg from 'pg';
import {
  BARE_RATE_LIMIT,
  HttpError,
  inTransaction,
  pool,
  readJson,
  send,
  serve,
} from './bare-server.js';

/**
 * The raw baseline of `npm run bench`: the same JSON for the bench's requests as the app,
 * written from scratch as the cheapest honest code over the same schema, to show the
 * distance to what Node and PostgreSQL can do. Nothing from src/: categories held in memory
 * from the start, one statement per read, the total from the trigger-kept `pet_counts`, an
 * Authorization header checked for presence only, no validation beyond parameterized SQL
 * (no trimming, no status-move rules, no error bodies beyond a code). Its statements are
 * named (prepared once per connection), as the app's are: planning each one would flatter
 * the app.
 */
interface Category {
  id: number;
  name: string;
  description?: string;
}
interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: string;
  photo_urls: string[];
  age: number | null;
  breed: string | null;
  description: string | null;
  created_at: Date;
  updated_at: Date;
  tags: { id: number; name: string }[];
}

const categories = new Map<number, Category>();
const categoryIdByName = new Map<string, number>();
for (const row of (
  await pool.query<Category & { description: string | null }>(
    'SELECT id, name, description FROM categories',
  )
).rows) {
  categories.set(row.id, { id: row.id, name: row.name, description: row.description ?? undefined });
  categoryIdByName.set(row.name.toLowerCase(), row.id);
}

// pg refuses one name for two texts: the name is the text's hash.
const named = (text: string, values: unknown[]): pg.QueryConfig => ({
  name: `raw_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`,
  text,
  values,
});

const tagsJson = (from: string) =>
  `COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.name)
               FROM ${from}), '[]') AS tags`;
const tagsOf = (pet: string) =>
  tagsJson(`pet_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.pet_id = ${pet}.id`);

const WRITE_COLUMNS: Record<string, string> = {
  name: 'name',
  categoryId: 'category_id',
  status: 'status',
  photoUrls: 'photo_urls',
  age: 'age',
  breed: 'breed',
  description: 'description',
};

const toJson = (pet: PetRow) => ({
  id: pet.id,
  name: pet.name,
  category: categories.get(pet.category_id),
  photoUrls: pet.photo_urls,
  tags: pet.tags,
  status: pet.status,
  age: pet.age ?? undefined,
  breed: pet.breed ?? undefined,
  description: pet.description ?? undefined,
  createdAt: pet.created_at.toISOString(),
  updatedAt: pet.updated_at.toISOString(),
});

async function list(query: URLSearchParams) {
  const limit = Number(query.get('limit') ?? 20);
  const category = query.get('category');
  const status = query.get('status');
  const cursor = query.get('cursor');
  const after = cursor
    ? (JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, number, number])
    : undefined;
  const offset = after ? after[2] : Number(query.get('offset') ?? 0);
  const params: unknown[] = [];
  const where: string[] = [];
  // Unqualified, so that the same conditions read pets below and pet_counts in the total.
  if (category !== null) {
    where.push(`category_id = $${params.push(categoryIdByName.get(category.toLowerCase()) ?? 0)}`);
  }
  if (status !== null) where.push(`status = $${params.push(status)}::pet_status`);
  const counted = `SELECT COALESCE(sum(count), 0)::int8 AS total FROM pet_counts${whereOf(where)}`;
  const countParams = [...params];
  if (after) {
    where.push(
      `(created_at, id) < ($${params.push(after[0])}::timestamptz, $${params.push(after[1])}::int8)`,
    );
  }
  // Tags for the page only: beside the scan they would be aggregated for every row OFFSET skips.
  const { rows } = await pool.query<PetRow & { total: number }>(
    named(
      `SELECT p.*, ${tagsOf('p')}, (${counted}) AS total
         FROM (SELECT * FROM pets${whereOf(where)} ORDER BY created_at DESC, id DESC
                LIMIT $${params.push(limit)} OFFSET $${params.push(after ? 0 : offset)}) p
        ORDER BY created_at DESC, id DESC`,
      params,
    ),
  );
  const total =
    rows[0]?.total ??
    (offset > 0
      ? (await pool.query<{ total: number }>(named(counted, countParams))).rows[0].total
      : 0);
  const pagination: Record<string, unknown> = {
    limit,
    offset,
    total,
    hasMore: offset + rows.length < total,
  };
  const last = rows.at(-1);
  if (pagination.hasMore && last) {
    // Bound to the filters and sort by a digest of them, as the app's cursor is.
    const filters = [category, status, null, [], null, null, null, null, null, '-createdAt'];
    const tag = createHash('sha256').update(JSON.stringify(filters)).digest('base64url');
    const next = [last.created_at.toISOString(), last.id, offset + rows.length, tag.slice(0, 22)];
    pagination.nextCursor = Buffer.from(JSON.stringify(next)).toString('base64url');
  }
  return { pets: rows.map(toJson), pagination };
}

const whereOf = (conditions: string[]) =>
  conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';

/**
 * One statement without tags. With them, one transaction: the tags upserted first in one
 * order (two writers of the same new tags cannot deadlock, and the pet's counter row is
 * locked only from the write to the commit), then the pet written and linked in one statement.
 */
async function write(
  statement: string,
  params: unknown[],
  tags: unknown,
  petId?: string,
): Promise<PetRow | undefined> {
  if (!Array.isArray(tags)) {
    const { rows } = await pool.query<PetRow>(
      named(
        `WITH pet AS (${statement} RETURNING *) SELECT pet.*, ${tagsOf('pet')} FROM pet`,
        params,
      ),
    );
    return rows[0];
  }
  return inTransaction(async (client) => {
    await client.query(
      named(
        `INSERT INTO tags (name)
         SELECT name FROM unnest($1::text[]) AS u(name) ORDER BY name COLLATE "C"
         ON CONFLICT (name) DO NOTHING`,
        [tags],
      ),
    );
    if (petId) await client.query(named('DELETE FROM pet_tags WHERE pet_id = $1', [petId]));
    const { rows } = await client.query<PetRow>(
      named(
        `WITH pet AS (${statement} RETURNING *),
              t AS (SELECT id, name FROM tags WHERE name = ANY($${params.length + 1}::text[])),
              linked AS (INSERT INTO pet_tags (pet_id, tag_id, pet_age)
                          SELECT pet.id, t.id, pet.age FROM pet, t)
         SELECT pet.*, ${tagsJson('t')} FROM pet`,
        [...params, tags],
      ),
    );
    if (!rows[0]) throw new HttpError(404, 'PET_NOT_FOUND');
    return rows[0];
  });
}

function fieldsOf(body: Record<string, unknown>): { columns: string[]; values: unknown[] } {
  const known = Object.keys(body).filter((field) => field in WRITE_COLUMNS);
  return { columns: known.map((field) => WRITE_COLUMNS[field]), values: known.map((f) => body[f]) };
}

serve('raw baseline', async (req, res, url) => {
  if (!req.headers.authorization) return send(res, 401, { code: 'AUTHENTICATION_REQUIRED' });
  const id = /^\/v1\/pets\/(\d+)$/.exec(url.pathname)?.[1];
  if (req.method === 'GET' && url.pathname === '/v1/pets') {
    return send(res, 200, await list(url.searchParams));
  }
  if (req.method === 'GET' && id) {
    const { rows } = await pool.query<PetRow>(
      named(`SELECT p.*, ${tagsOf('p')} FROM pets p WHERE p.id = $1`, [id]),
    );
    return rows[0] ? send(res, 200, toJson(rows[0])) : send(res, 404, { code: 'PET_NOT_FOUND' });
  }
  if (req.method === 'POST' && url.pathname === '/v1/pets') {
    const body = await readJson(req);
    const { columns, values } = fieldsOf(body);
    const insert = `INSERT INTO pets (${columns.join(', ')})
                    VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
    return send(res, 201, toJson((await write(insert, values, body.tags))!));
  }
  if (req.method === 'PUT' && id) {
    const body = await readJson(req);
    const { columns, values } = fieldsOf(body);
    const set = columns.map((column, i) => `${column} = $${i + 2}, `).join('');
    const update = `UPDATE pets SET ${set}updated_at = clock_timestamp() WHERE id = $1`;
    const pet = await write(update, [id, ...values], body.tags, id);
    return pet ? send(res, 200, toJson(pet)) : send(res, 404, { code: 'PET_NOT_FOUND' });
  }
  if (req.method === 'GET' && url.pathname === '/v1/rate-limit') {
    return send(res, 200, BARE_RATE_LIMIT);
  }
  send(res, 404, { code: 'NOT_FOUND' });
});
