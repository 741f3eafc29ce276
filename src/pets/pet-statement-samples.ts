import type { PetActor } from './pet-actor.js';
import { historyPageQuery } from './sql/pet-events.sql.js';
import { INVENTORY, SELECT_PET_BY_ID, SELECT_PETS_BY_EXTERNAL_IDS } from './sql/pet-reads.sql.js';
import {
  countedFacetsQuery,
  exportPetsQuery,
  listPetsQuery,
  petFacetsQuery,
  TAG_IDS,
  type PetListFilters,
  type TagIds,
} from './sql/pet-search.sql.js';
import {
  appendPhotoUrlQuery,
  deletePetQuery,
  insertPetQuery,
  insertPetsQuery,
  LINK_TAGS,
  moveForAdoptionsQuery,
  recordUpdateQuery,
  UNLINK_TAGS,
  updatePetQuery,
  UPSERT_TAGS,
} from './sql/pet-writes.sql.js';

/** One shape of a statement the pets' repositories run, built from fixed sample values. */
export interface StatementSample {
  /** The builder and what sets this shape apart. */
  name: string;
  sql: string;
  params: unknown[];
}

/*
 * Every statement shape of this folder's builders, by the file that builds it, for
 * `npm run sql:generate` (docs/data-access.md, "Statements as SQL"): a new filter, sort or
 * write that builds a new shape gets a sample here.
 */

const ACTOR: PetActor = { userId: 1, apiKeyPrefix: 'pk_live_AbCd', role: 'user' };
const FRIENDLY: TagIds = new Map([['friendly', ['7']]]);
const FRIENDLY_OR_CALM: TagIds = new Map([
  ['friendly', ['7']],
  ['calm', ['8', '9']],
]);
const PAGE = { limit: 20, offset: 0 };

/** `listPetsQuery`'s page and its count-alone statement, as two samples. */
function list(name: string, filters: PetListFilters, tagIds?: TagIds): StatementSample[] {
  const { sql, params, countSql, countParams } = listPetsQuery(filters, tagIds);
  return [
    { name: `listPetsQuery: ${name}`, sql, params },
    { name: `listPetsQuery: ${name}, counted alone`, sql: countSql, params: countParams },
  ];
}

const sample = (name: string, statement: { sql: string; params: unknown[] }): StatementSample => ({
  name,
  ...statement,
});

export const PET_STATEMENT_SAMPLES: Record<string, StatementSample[]> = {
  'pet-reads': [
    { name: 'SELECT_PET_BY_ID', sql: SELECT_PET_BY_ID, params: [42] },
    { name: 'INVENTORY', sql: INVENTORY, params: [] },
    {
      name: 'SELECT_PETS_BY_EXTERNAL_IDS',
      sql: SELECT_PETS_BY_EXTERNAL_IDS,
      params: [['SKU-1042', 'SKU-1043']],
    },
  ],
  'pet-search': [
    { name: 'TAG_IDS', sql: TAG_IDS, params: [['friendly', 'calm']] },
    ...list('no filter, newest first', PAGE),
    ...list('category and status, oldest first', {
      ...PAGE,
      category: 'Dogs',
      status: 'available',
      sort: 'createdAt',
    }),
    ...list('by name, after a cursor', {
      ...PAGE,
      sort: 'name',
      after: { key: 'rex', id: 42 },
    }),
    ...list('by age descending, after a cursor with an age', {
      ...PAGE,
      sort: '-age',
      after: { key: 3, id: 42 },
    }),
    ...list('by age, after a cursor without an age', {
      ...PAGE,
      sort: 'age',
      after: { key: null, id: 42 },
    }),
    ...list('newest first, after a cursor', {
      ...PAGE,
      after: { key: '2026-11-21T22:27:03.123Z', id: 42 },
    }),
    ...list('q and status, by relevance', { ...PAGE, q: 'labrdor', status: 'available' }),
    ...list('q, by relevance, after a cursor', {
      ...PAGE,
      q: 'labrdor',
      after: { key: 0.5, id: 42 },
    }),
    ...list('q and a breed, by relevance', { ...PAGE, q: 'labrdor', breed: 'Labrador' }),
    ...list(
      'q and a tag, by relevance, after a cursor',
      { ...PAGE, q: 'labrdor', tags: ['friendly'], after: { key: 0.5, id: 42 } },
      FRIENDLY,
    ),
    ...list('q, newest first', { ...PAGE, q: 'labrdor', sort: '-createdAt' }),
    ...list(
      'one tag and an age range',
      { ...PAGE, tags: ['friendly'], minAge: 2, maxAge: 8 },
      FRIENDLY,
    ),
    ...list(
      'two tags, one of two ids, and a category',
      { ...PAGE, tags: ['friendly', 'calm'], category: 'Dogs' },
      FRIENDLY_OR_CALM,
    ),
    ...list('an unknown tag', { ...PAGE, tags: ['unheard-of'] }),
    ...list('created between two times', {
      ...PAGE,
      createdAfter: '2026-11-01T00:00:00.000Z',
      createdBefore: '2026-12-01T00:00:00.000Z',
    }),
    ...list('one externalId', { ...PAGE, externalId: 'SKU-1042' }),
    sample(
      'exportPetsQuery: no filter, the first batch, as NDJSON',
      exportPetsQuery({}, new Map(), { limit: 1000 }, 'ndjson'),
    ),
    sample(
      'exportPetsQuery: no filter, the first batch, as CSV',
      exportPetsQuery({}, new Map(), { limit: 1000 }, 'csv'),
    ),
    sample(
      'exportPetsQuery: category and status, below an id',
      exportPetsQuery(
        { category: 'Dogs', status: 'available' },
        new Map(),
        { beforeId: 42, limit: 1000 },
        'ndjson',
      ),
    ),
    sample(
      'exportPetsQuery: q and a tag, below an id',
      exportPetsQuery(
        { q: 'labrdor', tags: ['friendly'] },
        FRIENDLY,
        { beforeId: 42, limit: 1000 },
        'csv',
      ),
    ),
    sample('countedFacetsQuery: no filter', countedFacetsQuery({})),
    sample(
      'countedFacetsQuery: category and status',
      countedFacetsQuery({ category: 'Dogs', status: 'available' }),
    ),
    sample('petFacetsQuery: q and a category', petFacetsQuery({ q: 'labrdor', category: 'Dogs' })),
    sample(
      'petFacetsQuery: a tag and an age range',
      petFacetsQuery({ tags: ['friendly'], minAge: 2 }, FRIENDLY),
    ),
  ],
  'pet-writes': [
    sample(
      'insertPetQuery: without tags',
      insertPetQuery({ name: 'Rex', categoryId: 3, status: 'available', photoUrls: [] }, [], ACTOR),
    ),
    sample(
      'insertPetQuery: every field, with tags',
      insertPetQuery(
        {
          name: 'Rex',
          categoryId: 3,
          status: 'available',
          photoUrls: ['https://example.com/rex.jpg'],
          age: 3,
          breed: 'Labrador',
          description: 'Fetches',
          externalId: 'SKU-1042',
        },
        ['friendly', 'calm'],
        ACTOR,
      ),
    ),
    sample(
      'insertPetsQuery: two pets, one with tags',
      insertPetsQuery(
        [
          {
            fields: { name: 'Rex', categoryId: 3, status: 'available', photoUrls: [], age: 3 },
            tags: ['friendly', 'calm'],
          },
          { fields: { name: 'Tom', categoryId: 3, status: 'sold', photoUrls: [] }, tags: [] },
        ],
        ACTOR,
      ),
    ),
    sample(
      'updatePetQuery: fields, recording its events',
      updatePetQuery(42, { name: 'Rex', age: 4 }, {}, ACTOR),
    ),
    sample(
      'updatePetQuery: a status move under If-Match, events recorded later',
      updatePetQuery(
        42,
        { status: 'sold' },
        { fromStatuses: ['available', 'pending'], versionTags: ['3.1'] },
        undefined,
      ),
    ),
    sample(
      'recordUpdateQuery',
      recordUpdateQuery(42, { changedFields: ['name', 'tags'], statusFrom: 'available' }, ACTOR),
    ),
    sample(
      'appendPhotoUrlQuery',
      appendPhotoUrlQuery(42, 'https://example.com/rex.jpg', 20, ACTOR),
    ),
    sample('deletePetQuery', deletePetQuery(42, ACTOR)),
    sample(
      'moveForAdoptionsQuery',
      moveForAdoptionsQuery(
        [
          { petId: 42, adoptionId: 7 },
          { petId: 43, adoptionId: 8 },
        ],
        'pending',
        'available',
        { userId: null, apiKeyPrefix: null },
      ),
    ),
    { name: 'UPSERT_TAGS', sql: UPSERT_TAGS, params: [['calm', 'friendly']] },
    { name: 'UNLINK_TAGS', sql: UNLINK_TAGS, params: [42] },
    { name: 'LINK_TAGS', sql: LINK_TAGS, params: [42, ['calm', 'friendly']] },
  ],
  'pet-events': [
    sample('historyPageQuery: by offset', historyPageQuery(42, { limit: 20, offset: 0 })),
    sample(
      'historyPageQuery: before a sequence',
      historyPageQuery(42, { limit: 20, offset: 0, beforeSequence: 100 }),
    ),
  ],
};
