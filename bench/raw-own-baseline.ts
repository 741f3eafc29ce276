import { BARE_RATE_LIMIT, HttpError, named, pool, readJson, send, serve } from './bare-server.js';
import { filtersTag, signed, verified } from './raw-cursor.js';

/**
 * The raw baseline on its own schema (bench/raw-own-database.ts): the same JSON as the app for
 * the bench's core requests (lists by category and status, cursor and offset pages, a pet by
 * id, a create, an update), written from scratch over the schema a hand-written server would
 * choose: a pet's tags a jsonb array in its row, one counter row per (category, status) kept
 * by a trigger, a create one INSERT ... RETURNING, every statement named. Nothing from src/:
 * categories and the known tag names held in memory from the start, an Authorization header
 * checked for presence only, no validation beyond parameterized SQL. Search, facets and other
 * sorts are not served (501): it measures what the app's core rows could cost.
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
  tags: { id: number; name: string }[];
  age: number | null;
  breed: string | null;
  description: string | null;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
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
const knownTags = new Set(
  (await pool.query<{ name: string }>('SELECT name FROM tags')).rows.map((row) => row.name),
);

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
  externalId: pet.external_id ?? undefined,
  createdAt: pet.created_at.toISOString(),
  updatedAt: pet.updated_at.toISOString(),
});

const COLUMNS =
  'id, name, category_id, status, photo_urls, tags, age, breed, description, external_id, created_at, updated_at';
const ORDER = 'ORDER BY created_at DESC, id DESC';
/** The list's only other parameters; anything else is a search this server does not serve. */
const SERVED = new Set(['limit', 'offset', 'cursor', 'category', 'status', 'sort']);

async function list(query: URLSearchParams) {
  const sort = query.get('sort') ?? '-createdAt';
  if (sort !== '-createdAt' || [...query.keys()].some((key) => !SERVED.has(key))) {
    throw new HttpError(501, 'NOT_SERVED');
  }
  const category = query.get('category');
  const status = query.get('status');
  const limit = Number(query.get('limit') ?? 20);
  const cursor = query.get('cursor');
  const after = cursor
    ? (JSON.parse(Buffer.from(verified(cursor), 'base64url').toString()) as [
        string,
        number,
        number,
      ])
    : undefined;
  const offset = after ? after[2] : Number(query.get('offset') ?? 0);
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const conditions: string[] = [];
  if (category !== null) {
    conditions.push(`category_id = ${param(categoryIdByName.get(category.toLowerCase()) ?? 0)}`);
  }
  if (status !== null) conditions.push(`status = ${param(status)}::pet_status`);
  const counted = `SELECT COALESCE(sum(count), 0)::int8 FROM pet_counts${whereOf(conditions)}`;
  const countParams = [...params];
  const page = after
    ? [...conditions, `(created_at, id) < (${param(after[0])}, ${param(after[1])})`]
    : conditions;
  const { rows } = await pool.query<PetRow & { total: number }>(
    named(
      `SELECT ${COLUMNS}, (${counted}) AS total FROM pets${whereOf(page)}
        ${ORDER} LIMIT ${param(limit)} OFFSET ${param(after ? 0 : offset)}`,
      params,
    ),
  );
  const total =
    rows[0]?.total ??
    (offset > 0
      ? (await pool.query<{ total: number }>(named(`SELECT (${counted}) AS total`, countParams)))
          .rows[0].total
      : 0);
  const pagination: Record<string, unknown> = {
    limit,
    offset,
    total,
    hasMore: offset + rows.length < total,
  };
  const last = rows.at(-1);
  if (pagination.hasMore && last) {
    const filters = { category, status, q: null, tags: [], minAge: null, maxAge: null };
    const next = [
      last.created_at.toISOString(),
      last.id,
      offset + rows.length,
      filtersTag(filters, sort),
    ];
    pagination.nextCursor = signed(Buffer.from(JSON.stringify(next)).toString('base64url'));
  }
  return { pets: rows.map(toJson), pagination };
}

const whereOf = (conditions: string[]) =>
  conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';

/** The tags named by parameter `names`, as the pet row holds them: by name, as the app orders them. */
const tagsOf = (names: string) =>
  `(SELECT COALESCE(jsonb_agg(jsonb_build_object('id', id, 'name', name) ORDER BY name), '[]')
      FROM tags WHERE name = ANY(${names}::text[]))`;

/**
 * Tags this server has not seen inserted first, in a statement of their own: committed
 * before the pet's statement reads them, whoever inserted them.
 */
async function ensureTags(tags: string[]): Promise<void> {
  const unknown = tags.filter((tag) => !knownTags.has(tag));
  if (unknown.length === 0) return;
  await pool.query(
    named(
      `INSERT INTO tags (name) SELECT name FROM unnest($1::text[]) AS u(name)
         ORDER BY name COLLATE "C" ON CONFLICT (name) DO NOTHING`,
      [unknown],
    ),
  );
  for (const tag of unknown) knownTags.add(tag);
}

const CREATE = `
  INSERT INTO pets (tags, name, category_id, status, photo_urls, age, breed, description)
  VALUES (${tagsOf('$1')}, $2, $3, COALESCE($4::pet_status, 'available'),
          COALESCE($5::text[], '{}'), $6, $7, $8)
  RETURNING ${COLUMNS}`;

async function create(body: Record<string, unknown>): Promise<PetRow> {
  const tags = (body.tags ?? []) as string[];
  await ensureTags(tags);
  const { rows } = await pool.query<PetRow>(
    named(CREATE, [
      tags,
      body.name,
      body.categoryId,
      body.status,
      body.photoUrls,
      body.age,
      body.breed,
      body.description,
    ]),
  );
  return rows[0];
}

const UPDATED_COLUMNS: Record<string, string> = {
  name: 'name',
  categoryId: 'category_id',
  status: 'status',
  photoUrls: 'photo_urls',
  age: 'age',
  breed: 'breed',
  description: 'description',
};

/** One UPDATE ... RETURNING of the fields given; the tags, if given, from their names. */
async function update(id: string, body: Record<string, unknown>): Promise<PetRow | undefined> {
  const tags = Array.isArray(body.tags) ? (body.tags as string[]) : undefined;
  if (tags) await ensureTags(tags);
  const fields = Object.keys(body).filter((field) => field in UPDATED_COLUMNS);
  const params: unknown[] = [id];
  const param = (value: unknown) => `$${params.push(value)}`;
  const set = fields.map((field) => {
    const cast = field === 'status' ? '::pet_status' : '';
    return `${UPDATED_COLUMNS[field]} = ${param(body[field])}${cast}, `;
  });
  if (tags) set.push(`tags = ${tagsOf(param(tags))}, `);
  const { rows } = await pool.query<PetRow>(
    named(
      `UPDATE pets SET ${set.join('')}updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      params,
    ),
  );
  return rows[0];
}

serve('raw baseline on its own schema', async (req, res, url) => {
  if (!req.headers.authorization) return send(res, 401, { code: 'AUTHENTICATION_REQUIRED' });
  const id = /^\/v1\/pets\/(\d+)$/.exec(url.pathname)?.[1];
  if (req.method === 'GET' && url.pathname === '/v1/pets') {
    return send(res, 200, await list(url.searchParams));
  }
  if (req.method === 'GET' && id) {
    const { rows } = await pool.query<PetRow>(
      named(`SELECT ${COLUMNS} FROM pets WHERE id = $1`, [id]),
    );
    return rows[0] ? send(res, 200, toJson(rows[0])) : send(res, 404, { code: 'PET_NOT_FOUND' });
  }
  if (req.method === 'POST' && url.pathname === '/v1/pets') {
    return send(res, 201, toJson(await create(await readJson(req))));
  }
  if (req.method === 'PUT' && id) {
    const pet = await update(id, await readJson(req));
    return pet ? send(res, 200, toJson(pet)) : send(res, 404, { code: 'PET_NOT_FOUND' });
  }
  if (req.method === 'GET' && url.pathname === '/v1/rate-limit') {
    return send(res, 200, BARE_RATE_LIMIT);
  }
  send(res, 404, { code: 'NOT_FOUND' });
});
