import { MAX_PAGE_SIZE } from '../../common/contract-limits.js';
import { defaultSort, type PetSort } from '../pet-sort.js';
import type { PetStatus } from '../pet-status.js';
import type { PetExportFormat } from '../pet-export.js';
import { PET_EXPORT_LINES } from './pet-export.sql.js';
import { PET_COLUMNS, type PetRow } from './pet-reads.sql.js';
import { parameters, type Param } from './statement-parts.js';

/** The filters of `GET /pets` and `GET /pets/facets` (contract section 8). */
export interface PetFilters {
  category?: string;
  status?: PetStatus;
  /** Web-search syntax, see `pet_search_query` (src/database/schema/pet-search.sql). */
  q?: string;
  /** All of them, any case. */
  tags?: string[];
  breed?: string;
  minAge?: number;
  maxAge?: number;
  /** Exclusive bounds, timestamps with a zone. */
  createdAfter?: string;
  createdBefore?: string;
  /** Exactly, case-sensitively. */
  externalId?: string;
}

/** A sort key's value as the page query reads it (`sortKey`) and a cursor carries it. */
export type SortKey = string | number | null;

export interface PetListFilters extends PetFilters {
  /** `defaultSort` when not given. */
  sort?: PetSort;
  limit: number;
  offset: number;
  /** Keyset paging: the page starts after the pet with this sort key and id. */
  after?: { key: SortKey; id: number };
}

/** A page row: the pet and its value of the sort key (for the next page's cursor). */
export type PetPageRow = PetRow & { sortKey: SortKey | Date; total: number };

interface SortSpec {
  /** The expression over pet `p` (and its document `d` when searching). */
  key: string;
  type: 'timestamptz' | 'text' | 'int4' | 'float4';
  descending: boolean;
  nullable: boolean;
}

// Names compare by lower case, byte by byte (COLLATE "C"): the same order on every server
// whatever its locale, and one IDX_pets_name_lower serves both directions.
const NAME_KEY = 'lower(p.name) COLLATE "C"';
const RANK_KEY = 'ts_rank(d.document, (SELECT query FROM search))';

const SORTS: Record<PetSort, SortSpec> = {
  '-createdAt': { key: 'p.created_at', type: 'timestamptz', descending: true, nullable: false },
  createdAt: { key: 'p.created_at', type: 'timestamptz', descending: false, nullable: false },
  name: { key: NAME_KEY, type: 'text', descending: false, nullable: false },
  '-name': { key: NAME_KEY, type: 'text', descending: true, nullable: false },
  age: { key: 'p.age', type: 'int4', descending: false, nullable: true },
  '-age': { key: 'p.age', type: 'int4', descending: true, nullable: true },
  relevance: { key: RANK_KEY, type: 'float4', descending: true, nullable: false },
};

/** The filters beyond category and status, which the counters cannot count. */
const SEARCH_FILTERS = [
  'q',
  'tags',
  'breed',
  'minAge',
  'maxAge',
  'createdAfter',
  'createdBefore',
  'externalId',
] as const satisfies readonly (keyof PetFilters)[];

/** Only category and status, or nothing: the trigger-kept counters count the matches. */
export const countedByCounters = (filters: PetFilters): boolean =>
  SEARCH_FILTERS.every((name) => filters[name] === undefined);

/**
 * The ids of the tags each requested tag names (any case), keyed by the name as requested:
 * read before the search, so that its statement holds the ids as values and the planner
 * knows from `pet_tags`' statistics whether a tag is rare (start from its pets) or common
 * (walk the sort's index and test each pet), which it cannot know through a sub-query.
 */
export type TagIds = ReadonlyMap<string, readonly string[]>;

export const TAG_IDS = `
  SELECT u.tag, array_agg(t.id) AS ids
    FROM unnest($1::text[]) AS u(tag) JOIN tags t ON lower(t.name) = lower(u.tag)
   GROUP BY u.tag`;

/** A pet's rows to search, and the conditions on them. */
interface Matching {
  /** `WITH search AS (...)` when searching, else empty. */
  with: string;
  from: string;
  conditions: string[];
  /** Only category and status: the trigger-kept counters give the total. */
  countedByCounters: boolean;
  /** A statement counting the matches, without the counters. */
  count: string;
  /**
   * `q` with at most category and status: the conditions are on the document `d` alone,
   * which holds the pet's category, status and tag ids beside its text.
   */
  documentsOnly: boolean;
}

function matching(filters: PetFilters, tagIds: TagIds, param: Param): Matching {
  const conditions: string[] = [];
  let with_ = '';
  let from = 'pets p';
  const documentsOnly =
    filters.q !== undefined &&
    SEARCH_FILTERS.every((name) => name === 'q' || filters[name] === undefined);
  // Category and status from the pet, or from its document when only it is read.
  const row = documentsOnly ? 'd' : 'p';
  if (filters.q !== undefined) {
    // Materialized: the query is built once (its typo lookups included), then used as a
    // value by the index condition and the rank.
    with_ = `WITH search AS MATERIALIZED (SELECT pet_search_query(${param(filters.q)}) AS query) `;
    from = 'pets p JOIN pet_documents d ON d.pet_id = p.id';
    conditions.push('d.document @@ (SELECT query FROM search)');
  }
  if (filters.category !== undefined) {
    conditions.push(
      `${row}.category_id = (SELECT id FROM categories WHERE lower(name) = lower(${param(filters.category)}))`,
    );
  }
  if (filters.status !== undefined) {
    conditions.push(`${row}.status = ${param(filters.status)}::pet_status`);
  }
  /** Each requested tag's ids, as the statement's values. */
  const tagValues: { ids: readonly string[]; value: string }[] = [];
  for (const tag of new Set(filters.tags ?? [])) {
    const ids = tagIds.get(tag);
    if (!ids) {
      conditions.push('false');
      continue;
    }
    const value = `${param(ids)}::int8[]`;
    tagValues.push({ ids, value });
    conditions.push(
      `EXISTS (SELECT 1 FROM pet_tags pt WHERE pt.pet_id = p.id AND pt.tag_id = ANY(${value}))`,
    );
  }
  if (filters.breed !== undefined) {
    conditions.push(`lower(p.breed) = lower(${param(filters.breed)})`);
  }
  const ages: string[] = [];
  if (filters.minAge !== undefined) ages.push(`>= ${param(filters.minAge)}::int4`);
  if (filters.maxAge !== undefined) ages.push(`<= ${param(filters.maxAge)}::int4`);
  conditions.push(...ages.map((bound) => `p.age ${bound}`));
  if (filters.createdAfter !== undefined) {
    conditions.push(`p.created_at > ${param(filters.createdAfter)}::timestamptz`);
  }
  if (filters.createdBefore !== undefined) {
    conditions.push(`p.created_at < ${param(filters.createdBefore)}::timestamptz`);
  }
  if (filters.externalId !== undefined) {
    conditions.push(`p.external_id = ${param(filters.externalId)}`);
  }
  const match = {
    with: with_,
    from,
    conditions,
    countedByCounters: countedByCounters(filters),
    documentsOnly,
  };
  return { ...match, count: countMatches(filters, match, tagValues, ages) };
}

/**
 * Counts from the narrowest place that knows: with `q` and at most category and status,
 * the documents alone (one random read of a pet for each match saved); one tag, of one id,
 * and at most an age range, the tag's links with their pet's age, from `IDX_pet_tags_tag_age`
 * alone; otherwise the pets.
 */
function countMatches(
  filters: PetFilters,
  match: Omit<Matching, 'count'>,
  tagValues: { ids: readonly string[]; value: string }[],
  ages: string[],
): string {
  if (match.documentsOnly) {
    return `SELECT count(*)::int8 AS total FROM pet_documents d${where(match.conditions)}`;
  }
  const [tag] = tagValues;
  const tagAndAgeOnly =
    new Set(filters.tags).size === 1 &&
    tag?.ids.length === 1 &&
    filters.category === undefined &&
    filters.status === undefined &&
    SEARCH_FILTERS.every(
      (name) =>
        name === 'tags' || name === 'minAge' || name === 'maxAge' || filters[name] === undefined,
    );
  if (tagAndAgeOnly) {
    const links = [`tag_id = ANY(${tag.value})`, ...ages.map((bound) => `pet_age ${bound}`)];
    return `SELECT count(*)::int8 AS total FROM pet_tags${where(links)}`;
  }
  return `SELECT count(*)::int8 AS total FROM ${match.from}${where(match.conditions)}`;
}

/** The total from the per-(category, status) counters, for `countedByCounters` filters. */
function countersTotal(filters: PetFilters, param: Param): string {
  const conditions: string[] = [];
  if (filters.category !== undefined) {
    conditions.push(
      `category_id = (SELECT id FROM categories WHERE lower(name) = lower(${param(filters.category)}))`,
    );
  }
  if (filters.status !== undefined) {
    conditions.push(`status = ${param(filters.status)}::pet_status`);
  }
  return `SELECT COALESCE(sum(count), 0)::int8 AS total FROM pet_counts${where(conditions)}`;
}

/**
 * Pets after the cursor's (key, id) in the order `ORDER BY key, id DESC`, for a key that every
 * pet has. A key sorted descending and the id compare as one row, which an index on both
 * serves (IDX_pets_created); ascending, the key's own range bounds the scan.
 */
function afterCursor(
  sort: SortSpec,
  after: { key: SortKey; id: number },
  param: Param,
  petId: string,
): string {
  const id = `${param(after.id)}::int8`;
  const key = `${param(after.key)}::${sort.type}`;
  if (sort.descending) return `(${sort.key}, ${petId}) < (${key}, ${id})`;
  return `${sort.key} >= ${key} AND (${sort.key} > ${key} OR (${sort.key} = ${key} AND ${petId} < ${id}))`;
}

/**
 * Pets after the cursor's (key, id) for a key that some pets lack (age, pets without one
 * last), as parts that each bound a scan of the sort's index and follow one another in its
 * order: the cursor's key with smaller ids, the keys after it, the pets without a key. One
 * condition for all three (`age > k OR (age = k AND id < i) OR age IS NULL`) bounded
 * nothing, and a page read every pet before it: 1.1 s half-way through 1,000,000 pets.
 */
function partsAfterCursor(
  sort: SortSpec,
  after: { key: SortKey; id: number },
  param: Param,
): string[] {
  const id = `${param(after.id)}::int8`;
  if (after.key === null) return [`${sort.key} IS NULL AND p.id < ${id}`];
  const key = `${param(after.key)}::${sort.type}`;
  return [
    `${sort.key} = ${key} AND p.id < ${id}`,
    `${sort.key} ${sort.descending ? '<' : '>'} ${key}`,
    `${sort.key} IS NULL`,
  ];
}

const orderBy = (sort: SortSpec, key: string, petId = 'p.id') =>
  `ORDER BY ${key} ${sort.descending ? 'DESC' : 'ASC'}${sort.nullable ? ' NULLS LAST' : ''}, ${petId} DESC`;

/**
 * The page and the exact total in one statement; `countSql` counts alone, for an empty page
 * past the start (which carries no row to read the total from). `prepare`: the statement is
 * one of the few shapes of the plain list (category and status), worth a named statement;
 * a search's shapes are many, and a generic plan would not know how many pets a word or a
 * tag matches.
 */
export function listPetsQuery(
  filters: PetListFilters,
  tagIds: TagIds = new Map(),
): {
  sql: string;
  params: unknown[];
  countSql: string;
  countParams: unknown[];
  prepare: boolean;
} {
  const { params, param } = parameters();
  const sort = SORTS[filters.sort ?? defaultSort(filters.q)];
  const match = matching(filters, tagIds, param);
  // The counters' total alone is a statement of its own, with its own parameters.
  const counters = parameters();
  const countSql = match.countedByCounters
    ? countersTotal(filters, counters.param)
    : `${match.with}${match.count}`;
  const countParams = match.countedByCounters ? counters.params : [...params];
  // By relevance every match is ranked before the page is cut: they are counted on the way
  // (a window over them) rather than found a second time.
  const windowTotal = sort === SORTS.relevance;
  // By relevance with `documentsOnly` filters, the page is ranked and cut from the documents
  // (`r`), and only its pets are read; otherwise the page's pets come from the sub-query itself (`p`).
  const ranked = match.documentsOnly && sort === SORTS.relevance;
  const page = ranked ? 'r' : 'p';
  const total = match.countedByCounters
    ? `(${countersTotal(filters, param)})`
    : windowTotal
      ? `${page}."windowTotal"`
      : `(${match.count})`;
  const columns = `${ranked ? 'd.pet_id' : 'p.*'}, ${sort.key} AS "sortKey"${windowTotal ? ', count(*) OVER () AS "windowTotal"' : ''}`;
  const from = ranked ? 'pet_documents d' : match.from;
  // A named statement's first and cursor pages are cut at a constant first: a generic plan
  // estimates a LIMIT or OFFSET parameter as a tenth of the rows (a sort of 100,000 pets
  // rather than a walk of the index), and PostgreSQL kept planning every execution anew.
  const bounded = match.countedByCounters && (filters.after !== undefined || filters.offset === 0);
  const limit = bounded
    ? `LIMIT ${Math.max(MAX_PAGE_SIZE, filters.limit)}`
    : `LIMIT ${param(filters.limit)}${filters.after ? '' : ` OFFSET ${param(filters.offset)}`}`;
  // The page is cut in a sub-query first: in one query, the tag sub-select and the join ran
  // for every row OFFSET skips too (776 ms instead of 5 ms at offset 10,000).
  let cut: string;
  if (windowTotal && filters.after) {
    // All matches ranked and counted, then cut after the cursor: a later page costs what
    // the first one does, and its total is all the matches, not those past the cursor.
    const rank = { ...sort, key: 'm."sortKey"' };
    const id = ranked ? 'm.pet_id' : 'm.id';
    cut = `SELECT * FROM (SELECT ${columns} FROM ${from}${where(match.conditions)}) m
            WHERE ${afterCursor(rank, filters.after, param, id)}
            ${orderBy(rank, rank.key, id)} ${limit}`;
  } else if (filters.after && sort.nullable) {
    // Each part cut to the page, then the page cut from the parts, in order.
    const parts = partsAfterCursor(sort, filters.after, param).map(
      (part) =>
        `(SELECT ${columns} FROM ${from}${where([...match.conditions, part])}
           ${orderBy(sort, sort.key)} ${limit})`,
    );
    cut = `SELECT * FROM (${parts.join(' UNION ALL ')}) u ${orderBy(sort, 'u."sortKey"', 'u.id')} ${limit}`;
  } else {
    const id = ranked ? 'd.pet_id' : 'p.id';
    const conditions = filters.after
      ? [...match.conditions, afterCursor(sort, filters.after, param, id)]
      : match.conditions;
    cut = `SELECT ${columns} FROM ${from}${where(conditions)} ${orderBy(sort, sort.key, id)} ${limit}`;
  }
  if (bounded) {
    cut = `SELECT * FROM (${cut}) b ${orderBy(sort, 'b."sortKey"', 'b.id')} LIMIT ${param(filters.limit)}`;
  }
  const sql = `
    ${match.with}SELECT ${PET_COLUMNS}, ${page}."sortKey", ${total} AS total
      FROM (${cut}) ${page}
      ${ranked ? 'JOIN pets p ON p.id = r.pet_id' : ''}
      JOIN categories c ON c.id = p.category_id
     ${orderBy(sort, `${page}."sortKey"`)}`;
  return { sql, params, countSql, countParams, prepare: match.countedByCounters };
}

/** One batch of the export: the filters' pets with ids below `beforeId` (all, without it). */
export interface PetExportBatch {
  beforeId?: number;
  limit: number;
}

/** A pet of an export's batch, as the batch's statement returns it. */
export interface PetExportRow {
  id: number;
  /** The pet's line in the export's format, ending with its line break. */
  line: string;
}

/**
 * A batch of `GET /pets/export`: the pets the filters match, by id descending, below the
 * batch's id, at most its limit, each as its line in the format (pet-export.sql.ts). Each
 * batch is its own statement, keyed by id, so a batch deep into the export costs what the
 * first one does and no statement holds a snapshot for the export's whole length. The batch
 * is cut first, as the list does. The final LIMIT (the batch's own) lets the planner write the lines
 * after its last sort, which it postpones costly expressions to only under a limit: a sort
 * then moves the pets' columns, not their lines (a batch of long descriptions would spill
 * them to disk). `prepare` as in `listPetsQuery`.
 */
export function exportPetsQuery(
  filters: PetFilters,
  tagIds: TagIds,
  batch: PetExportBatch,
  format: PetExportFormat,
): { sql: string; params: unknown[]; prepare: boolean } {
  const { params, param } = parameters();
  const match = matching(filters, tagIds, param);
  const conditions =
    batch.beforeId === undefined
      ? match.conditions
      : [...match.conditions, `p.id < ${param(batch.beforeId)}::int8`];
  const limit = param(batch.limit);
  const { line, tags } = PET_EXPORT_LINES[format];
  const sql = `
    ${match.with ? `${match.with.slice(0, -1)},` : 'WITH'} batch AS MATERIALIZED (
      SELECT p.* FROM ${match.from}${where(conditions)}
       ORDER BY p.id DESC LIMIT ${limit})
    SELECT p.id, ${line} AS line
      FROM batch p JOIN categories c ON c.id = p.category_id
      CROSS JOIN LATERAL (${tags}) tg
     ORDER BY p.id DESC LIMIT ${limit}`;
  return { sql, params, prepare: match.countedByCounters };
}

/** What `GET /pets/facets` answers, as the facets query reads it. */
export interface PetFacetsRow {
  total: number;
  status: Record<PetStatus, number>;
  categories: { id: number; name: string; count: number }[];
  tags: { name: string; count: number }[];
}

export const FACET_TAGS = 20;

/**
 * Counts of the pets the filters match, in one statement and one snapshot: overall, by
 * status, by category (most pets first, then by name) and the most frequent tags (then by
 * name, byte order).
 */
export function petFacetsQuery(
  filters: PetFilters,
  tagIds: TagIds = new Map(),
): { sql: string; params: unknown[] } {
  const { params, param } = parameters();
  const match = matching(filters, tagIds, param);
  // From the documents alone when they hold all it needs, their tag ids included.
  const withMatches = `${match.with ? `${match.with.slice(0, -1)},` : 'WITH'} matches AS MATERIALIZED (
      ${
        match.documentsOnly
          ? `SELECT d.pet_id AS id, d.status, d.category_id, d.tag_ids FROM pet_documents d`
          : `SELECT p.id, p.status, p.category_id FROM ${match.from}`
      }${where(match.conditions)})`;
  const matchedTags = match.documentsOnly
    ? 'matches m CROSS JOIN unnest(m.tag_ids) AS pt(tag_id)'
    : 'matches m JOIN pet_tags pt ON pt.pet_id = m.id';
  const sql = `
    ${withMatches}
    SELECT (SELECT count(*) FROM matches)::int8 AS total,
           (SELECT json_build_object(
                     'available', count(*) FILTER (WHERE status = 'available'),
                     'pending', count(*) FILTER (WHERE status = 'pending'),
                     'sold', count(*) FILTER (WHERE status = 'sold'))
              FROM matches) AS status,
           (SELECT COALESCE(json_agg(json_build_object('id', c.id, 'name', c.name, 'count', m.count)
                                     ORDER BY m.count DESC, c.name COLLATE "C", c.id), '[]')
              FROM (SELECT category_id, count(*) AS count FROM matches GROUP BY category_id) m
              JOIN categories c ON c.id = m.category_id) AS categories,
           (SELECT COALESCE(json_agg(json_build_object('name', x.name, 'count', x.count)
                                     ORDER BY x.count DESC, x.name COLLATE "C"), '[]')
              FROM (SELECT t.name, count(*) AS count
                      FROM ${matchedTags} JOIN tags t ON t.id = pt.tag_id
                     GROUP BY t.name
                     ORDER BY count(*) DESC, t.name COLLATE "C"
                     LIMIT ${param(FACET_TAGS)}) x) AS tags`;
  return { sql, params };
}

/**
 * `petFacetsQuery` for `countedByCounters` filters (the default views: no filter, a
 * category, a status): from the trigger-kept counters of pets (`pet_counts`) and of their
 * links (`tag_counts`, src/database/schema/tag-counts.sql), whatever the number of pets.
 */
export function countedFacetsQuery(filters: PetFilters): { sql: string; params: unknown[] } {
  const { params, param } = parameters();
  const conditions: string[] = [];
  if (filters.category !== undefined) {
    conditions.push(
      `category_id = (SELECT id FROM categories WHERE lower(name) = lower(${param(filters.category)}))`,
    );
  }
  if (filters.status !== undefined) {
    conditions.push(`status = ${param(filters.status)}::pet_status`);
  }
  const byStatus = (status: PetStatus) =>
    `'${status}', COALESCE(sum(count) FILTER (WHERE status = '${status}'), 0)::int8`;
  const sql = `
    WITH counts AS MATERIALIZED (
      SELECT category_id, status, sum(count)::int8 AS count FROM pet_counts${where(conditions)}
       GROUP BY category_id, status HAVING sum(count) > 0)
    SELECT (SELECT COALESCE(sum(count), 0) FROM counts)::int8 AS total,
           (SELECT json_build_object(${byStatus('available')}, ${byStatus('pending')}, ${byStatus('sold')})
              FROM counts) AS status,
           (SELECT COALESCE(json_agg(json_build_object('id', c.id, 'name', c.name, 'count', m.count)
                                     ORDER BY m.count DESC, c.name COLLATE "C", c.id), '[]')
              FROM (SELECT category_id, sum(count)::int8 AS count FROM counts GROUP BY category_id) m
              JOIN categories c ON c.id = m.category_id) AS categories,
           (SELECT COALESCE(json_agg(json_build_object('name', x.name, 'count', x.count)
                                     ORDER BY x.count DESC, x.name COLLATE "C"), '[]')
              FROM (SELECT t.name, sum(tc.count)::int8 AS count
                      FROM tag_counts tc JOIN tags t ON t.id = tc.tag_id${where(conditions.map((condition) => `tc.${condition}`))}
                     GROUP BY t.name
                    HAVING sum(tc.count) > 0
                     ORDER BY sum(tc.count) DESC, t.name COLLATE "C"
                     LIMIT ${param(FACET_TAGS)}) x) AS tags`;
  return { sql, params };
}

const where = (conditions: string[]) =>
  conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
