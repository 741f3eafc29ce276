import {
  BARE_RATE_LIMIT,
  HttpError,
  inTransaction,
  named,
  pool,
  readJson,
  send,
  serve,
} from './bare-server.js';
import { filtersTag, signed, verified, type CursorFilters } from './raw-cursor.js';

/**
 * The raw baseline of `npm run bench`: the same JSON for the bench's requests as the app,
 * written from scratch as the cheapest honest code over the same schema, to show the
 * distance to what Node and PostgreSQL can do. Nothing from src/: categories held in memory
 * from the start, one statement per read, the total from the trigger-kept `pet_counts`, an
 * Authorization header checked for presence only, no validation beyond parameterized SQL
 * (no trimming, no status-move rules, no error bodies beyond a code). Its statements are
 * named (prepared once per connection), as the app's are: planning each one would flatter
 * the app. Search (`q`, `tag`, `minAge`, `maxAge`, `sort`, the facets) is the simplest SQL
 * that gives the app's answer, with none of the app's tricks, to show what they buy. An
 * adoption's request and completion are the same writes as the app's (the adoption, the pet's
 * status, the hold's job or the adopter's mail) and nothing more: the adopter or staff user
 * read from the token.
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

/** A pet's tags as its row holds them (`tag_list`, which the writes below keep). */
const tagsOf = (pet: string) => `${pet}.tag_list AS tags`;
/** `tag_list` for the tags of these names (parameter `names`), as the app writes it. */
const tagListOf = (names: string) =>
  `(SELECT COALESCE(('[' || string_agg(concat('{"id":', t.id, ',"name":', to_json(t.name::text), '}'), ','
                                       ORDER BY t.name) || ']')::json, '[]')
      FROM tags t WHERE t.name = ANY(${names}::text[]))`;

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

/** The filters of the list and the facets, unvalidated (the bench sends only valid ones). */
type Filters = CursorFilters;

function filtersOf(query: URLSearchParams): Filters {
  const number = (name: string) => (query.has(name) ? Number(query.get(name)) : null);
  return {
    category: query.get('category'),
    status: query.get('status'),
    q: query.get('q'),
    tags: query.getAll('tag'),
    minAge: number('minAge'),
    maxAge: number('maxAge'),
  };
}

/** Filters beyond category and status, which the counters cannot count. */
const searches = ({ q, tags, minAge, maxAge }: Filters) =>
  q !== null || tags.length > 0 || minAge !== null || maxAge !== null;

/**
 * The pets `p` the filters match, in the plainest SQL: the documents `d` joined for `q`, one
 * `EXISTS` per tag, by name. `counters`: the category and status conditions on `pet_counts`.
 */
function matching(filters: Filters, param: (value: unknown) => string) {
  let from = 'pets p';
  const conditions: string[] = [];
  const counters: string[] = [];
  if (filters.q !== null) {
    // In FROM, the query is built once; called in WHERE and ORDER BY, it may be built per row.
    from = `pets p JOIN pet_documents d ON d.pet_id = p.id
            CROSS JOIN pet_search_query(${param(filters.q)}) AS query`;
    conditions.push('d.document @@ query');
  }
  if (filters.category !== null) {
    const id = param(categoryIdByName.get(filters.category.toLowerCase()) ?? 0);
    conditions.push(`p.category_id = ${id}`);
    counters.push(`category_id = ${id}`);
  }
  if (filters.status !== null) {
    const status = param(filters.status);
    conditions.push(`p.status = ${status}::pet_status`);
    counters.push(`status = ${status}::pet_status`);
  }
  for (const tag of filters.tags) {
    conditions.push(`EXISTS (SELECT 1 FROM pet_tags pt JOIN tags t ON t.id = pt.tag_id
                              WHERE pt.pet_id = p.id AND lower(t.name) = lower(${param(tag)}))`);
  }
  if (filters.minAge !== null) conditions.push(`p.age >= ${param(filters.minAge)}`);
  if (filters.maxAge !== null) conditions.push(`p.age <= ${param(filters.maxAge)}`);
  return { from, conditions, counters };
}

type SortKey = string | number | null;
interface Sort {
  key: string;
  descending: boolean;
  /** Pets without an age come last, both ways. */
  nullable: boolean;
}

// Names by their lower case, byte by byte, as the contract orders them.
const NAME = 'lower(p.name) COLLATE "C"';
const SORTS: Record<string, Sort> = {
  '-createdAt': { key: 'p.created_at', descending: true, nullable: false },
  createdAt: { key: 'p.created_at', descending: false, nullable: false },
  name: { key: NAME, descending: false, nullable: false },
  '-name': { key: NAME, descending: true, nullable: false },
  age: { key: 'p.age', descending: false, nullable: true },
  '-age': { key: 'p.age', descending: true, nullable: true },
  relevance: { key: 'ts_rank(d.document, query)', descending: true, nullable: false },
};

const orderBy = (sort: Sort, key: string) =>
  `ORDER BY ${key} ${sort.descending ? 'DESC' : 'ASC'}${sort.nullable ? ' NULLS LAST' : ''}, p.id DESC`;

/** The pets after the cursor's (key, id) in the sort's order, ties by id descending. */
function pastCursor(sort: Sort, key: SortKey, id: number, param: (value: unknown) => string) {
  const last = param(id);
  if (key === null) return `(${sort.key} IS NULL AND p.id < ${last})`;
  const value = param(key);
  // Both descending: one row comparison, which the sort's index bounds.
  if (sort.descending && !sort.nullable) return `(${sort.key}, p.id) < (${value}, ${last})`;
  const nulls = sort.nullable ? ` OR ${sort.key} IS NULL` : '';
  return `(${sort.key} ${sort.descending ? '<' : '>'} ${value}
           OR ${sort.key} = ${value} AND p.id < ${last}${nulls})`;
}

async function list(query: URLSearchParams) {
  const filters = filtersOf(query);
  const limit = Number(query.get('limit') ?? 20);
  const sortName = query.get('sort') ?? (filters.q === null ? '-createdAt' : 'relevance');
  const sort = SORTS[sortName];
  const cursor = query.get('cursor');
  const after = cursor
    ? (JSON.parse(Buffer.from(verified(cursor), 'base64url').toString()) as [
        SortKey,
        number,
        number,
      ])
    : undefined;
  const offset = after ? after[2] : Number(query.get('offset') ?? 0);
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const { from, conditions, counters } = matching(filters, param);
  const counted = searches(filters)
    ? `SELECT count(*) AS total FROM ${from}${whereOf(conditions)}`
    : `SELECT COALESCE(sum(count), 0)::int8 AS total FROM pet_counts${whereOf(counters)}`;
  const countParams = [...params];
  const pageConditions = after
    ? [...conditions, pastCursor(sort, after[0], after[1], param)]
    : conditions;
  // Tags for the page only: beside the scan they would be aggregated for every row OFFSET skips.
  const page = `
    SELECT p.*, ${tagsOf('p')}, (${counted}) AS total
      FROM (SELECT p.*, ${sort.key} AS sort_key FROM ${from}${whereOf(pageConditions)}
             ${orderBy(sort, sort.key)} LIMIT ${param(limit)} OFFSET ${param(after ? 0 : offset)}) p
     ${orderBy(sort, 'p.sort_key')}`;
  // Searches are planned each time, as the app's are: a word's or a tag's pets may be 1 or
  // 400,000, which a generic plan cannot tell apart.
  const statement = (text: string, values: unknown[]) =>
    searches(filters) ? { text, values } : named(text, values);
  const { rows } = await pool.query<PetRow & { sort_key: SortKey | Date; total: number }>(
    statement(page, params),
  );
  const total =
    rows[0]?.total ??
    (offset > 0
      ? (await pool.query<{ total: number }>(statement(counted, countParams))).rows[0].total
      : 0);
  const pagination: Record<string, unknown> = {
    limit,
    offset,
    total,
    hasMore: offset + rows.length < total,
  };
  const last = rows.at(-1);
  if (pagination.hasMore && last) {
    const key = last.sort_key instanceof Date ? last.sort_key.toISOString() : last.sort_key;
    const next = [key, last.id, offset + rows.length, filtersTag(filters, sortName)];
    pagination.nextCursor = signed(Buffer.from(JSON.stringify(next)).toString('base64url'));
  }
  return { pets: rows.map(toJson), pagination };
}

/**
 * Two plain GROUP BY statements: the matches by status and category (the total, the status
 * and category counts summed here, the names from memory), and their 20 most frequent tags.
 */
async function facets(query: URLSearchParams) {
  const params: unknown[] = [];
  const { from, conditions } = matching(filtersOf(query), (value) => `$${params.push(value)}`);
  const groups = await pool.query<{ status: string; category_id: number; count: number }>(
    `SELECT p.status, p.category_id, count(*) AS count
       FROM ${from}${whereOf(conditions)}
      GROUP BY p.status, p.category_id`,
    params,
  );
  const tags = await pool.query<{ name: string; count: number }>(
    `SELECT t.name, count(*) AS count
       FROM ${from} JOIN pet_tags pt ON pt.pet_id = p.id JOIN tags t ON t.id = pt.tag_id
       ${whereOf(conditions)}
      GROUP BY t.name
      ORDER BY count(*) DESC, t.name COLLATE "C"
      LIMIT 20`,
    params,
  );
  const status: Record<string, number> = { available: 0, pending: 0, sold: 0 };
  const byCategory = new Map<number, number>();
  for (const row of groups.rows) {
    status[row.status] += row.count;
    byCategory.set(row.category_id, (byCategory.get(row.category_id) ?? 0) + row.count);
  }
  const counted = [...byCategory].map(([id, count]) => ({
    id,
    name: categories.get(id)!.name,
    count,
  }));
  // Most pets first, then by name byte by byte (as COLLATE "C"), then by id.
  counted.sort(
    (a, b) =>
      b.count - a.count || Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)) || a.id - b.id,
  );
  const total = counted.reduce((sum, category) => sum + category.count, 0);
  return { total, status, categories: counted, tags: tags.rows };
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
         SELECT pet.*, ${tagsOf('pet')} FROM pet`,
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

interface AdoptionRow {
  id: number;
  pet_id: number;
  pet_name: string;
  pet_status: string;
  adopter_id: number;
  adopter_username: string;
  status: string;
  message: string | null;
  hold_expires_at: Date | null;
  decided_by_id: number | null;
  decided_by_username: string | null;
  reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const adoptionJson = (a: AdoptionRow) => ({
  id: a.id,
  pet: { id: a.pet_id, name: a.pet_name, status: a.pet_status },
  adopter: { id: a.adopter_id, username: a.adopter_username },
  status: a.status,
  message: a.message ?? undefined,
  holdExpiresAt: a.hold_expires_at?.toISOString(),
  decidedBy:
    a.decided_by_id === null ? undefined : { id: a.decided_by_id, username: a.decided_by_username },
  reason: a.reason ?? undefined,
  createdAt: a.created_at.toISOString(),
  updatedAt: a.updated_at.toISOString(),
});

/** The user a bearer token names, read from its payload, unverified (presence only, as above). */
const userIdOf = (authorization: string) =>
  Number(
    (
      JSON.parse(Buffer.from(authorization.split('.')[1] ?? '', 'base64url').toString()) as {
        sub: string;
      }
    ).sub,
  );

const HOLD_MINUTES = Number(process.env.ADOPTION_HOLD_MINUTES ?? 4320);

/**
 * A request: in one statement (one transaction), the pet moved available → pending (only
 * from available), the adoption inserted with its hold, and the hold's expiry queued as the
 * app's job row, which the app's worker would run. No per-adopter limit, no history entry,
 * no events.
 */
async function requestAdoption(petId: unknown, adopterId: number, message: unknown) {
  const { rows } = await pool.query<AdoptionRow>(
    named(
      `WITH pet AS (
         UPDATE pets SET status = 'pending', version = version + 1, updated_at = clock_timestamp()
          WHERE id = $1 AND status = 'available' RETURNING id, name, status),
       adoption AS (
         INSERT INTO adoptions (pet_id, adopter_id, status, message, hold_expires_at)
         SELECT pet.id, $2::bigint, 'requested'::adoption_status, $3::text,
                now() + $4::int * interval '1 minute'
           FROM pet
         RETURNING *),
       job AS (
         INSERT INTO outbox_messages (consumer, subject, event_type, event, next_attempt_at)
         SELECT 'adoptions.hold-expiry', 'adoption:' || a.id, 'adoption.hold_expiry',
                jsonb_build_object('type', 'adoption.hold_expiry', 'subject', 'adoption:' || a.id,
                  'adoptionId', a.id,
                  'holdExpiresAt', to_char(a.hold_expires_at AT TIME ZONE 'UTC',
                                           'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
                a.hold_expires_at
           FROM adoption a)
       SELECT a.*, pet.name AS pet_name, pet.status AS pet_status, u.username AS adopter_username,
              NULL AS decided_by_username
         FROM adoption a JOIN pet ON pet.id = a.pet_id JOIN users u ON u.id = a.adopter_id`,
      [petId, adopterId, message ?? null, HOLD_MINUTES],
    ),
  );
  return rows[0];
}

/**
 * The consumer of raw's completion mails: one no process runs, so that the apps' mail queues
 * do not send raw's mails (in its rounds, or in theirs after it); the bench deletes them
 * between rounds (RAW_MAIL_CONSUMER in adoptions.bench.ts).
 */
const RAW_MAIL_CONSUMER = 'bench.raw-mail';

/**
 * approved → completed, then the pet pending → sold with the adopter's mail queued as the
 * app's job row (the one outbox row the app writes for `adoption.completed` without webhook
 * subscribers; here under RAW_MAIL_CONSUMER, due when the app's would be a year later, so no
 * worker's scan of the due rows meets it), in one transaction, in that order (the app's
 * trigger refuses a move of a pet whose adoption is still open). The mail's text and HTML are
 * concatenated, not escaped: the bench's pet and user names need none.
 */
function completeAdoption(id: string, staffId: number) {
  return inTransaction(async (client) => {
    const closed = await client.query<{ pet_id: number }>(
      named(
        `UPDATE adoptions
            SET status = 'completed', hold_expires_at = NULL, decided_by_id = $2,
                version = version + 1, updated_at = clock_timestamp()
          WHERE id = $1 AND status = 'approved' RETURNING pet_id`,
        [id, staffId],
      ),
    );
    if (!closed.rows[0]) throw new HttpError(409, 'INVALID_ADOPTION_TRANSITION');
    const { rows } = await client.query<AdoptionRow>(
      named(
        `WITH pet AS (
           UPDATE pets SET status = 'sold', version = version + 1, updated_at = clock_timestamp()
            WHERE id = $2 AND status = 'pending' RETURNING id, name, status),
         completed AS (
           SELECT a.*, pet.name AS pet_name, pet.status AS pet_status,
                  u.username AS adopter_username, d.username AS decided_by_username
             FROM adoptions a JOIN pet ON pet.id = a.pet_id JOIN users u ON u.id = a.adopter_id
             LEFT JOIN users d ON d.id = a.decided_by_id
            WHERE a.id = $1),
         mail AS (
           INSERT INTO outbox_messages (consumer, subject, event_type, event, next_attempt_at)
           SELECT $3, 'adopter:' || c.adopter_id, 'mail.send',
                  jsonb_build_object('type', 'mail.send', 'subject', 'adopter:' || c.adopter_id,
                    'to', jsonb_build_object('userId', c.adopter_id),
                    'mail', jsonb_build_object('template', 'adoption-completed',
                      'subject', 'Your adoption of ' || c.pet_name || ' is complete',
                      'text', 'Hello ' || c.adopter_username || E',\n\nYour adoption #' || c.id
                        || ' of ' || c.pet_name || ' is complete: ' || c.pet_name
                        || E' is yours.\n\nThank you for giving a pet a home.\n\n-- \nThe pet store\n',
                      'html', '<!DOCTYPE html>' || E'\n<html><head><meta charset="utf-8"><title>'
                        || 'Your adoption of ' || c.pet_name || ' is complete</title></head>'
                        || E'\n<body style="font-family: sans-serif; line-height: 1.5">\n<p>Hello '
                        || c.adopter_username || E',</p>\n<p>Your adoption #' || c.id || ' of '
                        || c.pet_name || ' is complete: ' || c.pet_name
                        || E' is yours.</p>\n<p>Thank you for giving a pet a home.</p>'
                        || E'\n<p>The pet store</p>\n</body></html>',
                      'links', '[]'::jsonb)),
                  now() + interval '1 year'
             FROM completed c)
         SELECT * FROM completed`,
        [id, closed.rows[0].pet_id, RAW_MAIL_CONSUMER],
      ),
    );
    if (!rows[0]) throw new HttpError(409, 'PET_NOT_AVAILABLE');
    return rows[0];
  });
}

serve('raw baseline', async (req, res, url) => {
  if (!req.headers.authorization) return send(res, 401, { code: 'AUTHENTICATION_REQUIRED' });
  if (req.method === 'POST' && url.pathname === '/v1/adoptions') {
    const body = await readJson(req);
    const adoption = await requestAdoption(
      body.petId,
      userIdOf(req.headers.authorization),
      body.message,
    );
    return adoption
      ? send(res, 201, adoptionJson(adoption))
      : send(res, 409, { code: 'PET_NOT_AVAILABLE' });
  }
  const completed = /^\/v1\/adoptions\/(\d+)\/complete$/.exec(url.pathname)?.[1];
  if (req.method === 'POST' && completed) {
    const adoption = await completeAdoption(completed, userIdOf(req.headers.authorization));
    return send(res, 200, adoptionJson(adoption));
  }
  const id = /^\/v1\/pets\/(\d+)$/.exec(url.pathname)?.[1];
  if (req.method === 'GET' && url.pathname === '/v1/pets') {
    return send(res, 200, await list(url.searchParams));
  }
  if (req.method === 'GET' && url.pathname === '/v1/pets/facets') {
    return send(res, 200, await facets(url.searchParams));
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
    const tagged = Array.isArray(body.tags);
    const insert = `INSERT INTO pets (${[...columns, ...(tagged ? ['tag_list'] : [])].join(', ')})
                    VALUES (${[
                      ...columns.map((_, i) => `$${i + 1}`),
                      ...(tagged ? [tagListOf(`$${columns.length + 1}`)] : []),
                    ].join(', ')})`;
    return send(res, 201, toJson((await write(insert, values, body.tags))!));
  }
  if (req.method === 'PUT' && id) {
    const body = await readJson(req);
    const { columns, values } = fieldsOf(body);
    const set =
      columns.map((column, i) => `${column} = $${i + 2}, `).join('') +
      (Array.isArray(body.tags) ? `tag_list = ${tagListOf(`$${columns.length + 2}`)}, ` : '');
    const update = `UPDATE pets SET ${set}updated_at = clock_timestamp() WHERE id = $1`;
    const pet = await write(update, [id, ...values], body.tags, id);
    return pet ? send(res, 200, toJson(pet)) : send(res, 404, { code: 'PET_NOT_FOUND' });
  }
  if (req.method === 'GET' && url.pathname === '/v1/rate-limit') {
    return send(res, 200, BARE_RATE_LIMIT);
  }
  send(res, 404, { code: 'NOT_FOUND' });
});
