import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isAllowedMove, type PetStatus } from '../../../src/pets/pet-status.js';
import { linkTags } from '../../support/pets.js';
import { seededRandom } from '../../support/seeded-random.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

/**
 * Random filters and sorts over a few hundred pets, against the same question answered by
 * brute force over the test's own copy of the data: the ids and their order, the total,
 * the facets, and cursor walks while pets are being created.
 */

const CATEGORIES = ['Dogs', 'Cats', 'Birds', 'Fish'];
const STATUSES = ['available', 'pending', 'sold'] as const;
// Words whose English stems differ from one another, none a stop word: a word matches a
// pet exactly when one of the pet's words is that word.
const NAMES = ['Rex', 'Max', 'Bella', 'Luna', 'Coco', 'Milo'];
const BREEDS = ['Labrador', 'Beagle', 'Poodle', 'Boxer'];
const DESCRIPTION_WORDS = ['calm', 'brown', 'black', 'loyal', 'quick', 'small'];
// Two spellings of one tag: filters ignore case, facets count each.
const TAGS = ['calm', 'Calm', 'small', 'young', 'trained'];
const SORTS = ['-createdAt', 'createdAt', 'name', '-name', 'age', '-age', 'relevance'] as const;
type Sort = (typeof SORTS)[number];
/** Creation times, few, so that many pets share one and the id decides. */
const TIMES = Array.from(
  { length: 12 },
  (_, i) => Date.parse('2025-03-01T00:00:00.000Z') + i * 3_600_000,
);
const SEEDED = 300;

interface ModelPet {
  id: number;
  name: string;
  status: string;
  categoryId: number;
  categoryName: string;
  breed: string | null;
  description: string | null;
  age: number | null;
  createdAt: number;
  tags: string[];
}

interface Filters {
  q?: { include: string[]; exclude?: string; or?: boolean };
  category?: string;
  status?: string;
  tag?: string[];
  breed?: string;
  minAge?: number;
  maxAge?: number;
  createdAfter?: number;
  createdBefore?: number;
  sort?: Sort;
}

const qText = (q: NonNullable<Filters['q']>) =>
  q.or ? q.include.join(' or ') : [...q.include, ...(q.exclude ? [`-${q.exclude}`] : [])].join(' ');

function queryString(filters: Filters): string {
  const params = new URLSearchParams();
  if (filters.q) params.append('q', qText(filters.q));
  for (const name of ['category', 'status', 'breed', 'minAge', 'maxAge', 'sort'] as const) {
    if (filters[name] !== undefined) params.append(name, String(filters[name]));
  }
  for (const tag of filters.tag ?? []) params.append('tag', tag);
  if (filters.createdAfter !== undefined) {
    params.append('createdAfter', new Date(filters.createdAfter).toISOString());
  }
  if (filters.createdBefore !== undefined) {
    params.append('createdBefore', new Date(filters.createdBefore).toISOString());
  }
  return params.toString();
}

const wordsOf = (pet: ModelPet) =>
  new Set(
    [pet.name, pet.breed ?? '', pet.tags.join(' '), pet.categoryName, pet.description ?? '']
      .join(' ')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  );

function matches(pet: ModelPet, filters: Filters): boolean {
  if (filters.q) {
    const words = wordsOf(pet);
    const { include, exclude, or } = filters.q;
    const found = or ? include.some((w) => words.has(w)) : include.every((w) => words.has(w));
    if (!found || (exclude !== undefined && words.has(exclude))) return false;
  }
  const lowerTags = new Set(pet.tags.map((tag) => tag.toLowerCase()));
  return (
    (filters.category === undefined ||
      pet.categoryName.toLowerCase() === filters.category.toLowerCase()) &&
    (filters.status === undefined || pet.status === filters.status) &&
    (filters.tag ?? []).every((tag) => lowerTags.has(tag.toLowerCase())) &&
    (filters.breed === undefined || pet.breed?.toLowerCase() === filters.breed.toLowerCase()) &&
    (filters.minAge === undefined || (pet.age !== null && pet.age >= filters.minAge)) &&
    (filters.maxAge === undefined || (pet.age !== null && pet.age <= filters.maxAge)) &&
    (filters.createdAfter === undefined || pet.createdAt > filters.createdAfter) &&
    (filters.createdBefore === undefined || pet.createdAt < filters.createdBefore)
  );
}

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** `ORDER BY key, id DESC`, pets without a key last. */
function order(key: (pet: ModelPet) => string | number | null, descending: boolean) {
  return (a: ModelPet, b: ModelPet) => {
    const [ka, kb] = [key(a), key(b)];
    if (ka === null || kb === null) {
      if (ka !== kb) return ka === null ? 1 : -1;
    } else if (ka !== kb) {
      return descending ? compare(kb, ka) : compare(ka, kb);
    }
    return b.id - a.id;
  };
}

describe('Pet search properties (e2e)', () => {
  let t: TestApp;
  const model: ModelPet[] = [];
  const categoryIds: Record<string, number> = {};

  async function create(fields: Omit<ModelPet, 'id' | 'createdAt' | 'categoryName'>) {
    const res = await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({
        name: fields.name,
        categoryId: fields.categoryId,
        status: fields.status,
        tags: fields.tags,
        ...(fields.breed === null ? {} : { breed: fields.breed }),
        ...(fields.description === null ? {} : { description: fields.description }),
        ...(fields.age === null ? {} : { age: fields.age }),
      })
      .expect(201);
    const categoryName = CATEGORIES.find((name) => categoryIds[name] === fields.categoryId)!;
    const pet = {
      ...fields,
      id: res.body.id as number,
      createdAt: Date.parse(res.body.createdAt as string),
      categoryName,
    };
    model.push(pet);
    return pet;
  }

  function randomPet(pick: (n: number) => number) {
    const some = <T>(list: readonly T[], max: number) => [
      ...new Set(Array.from({ length: pick(max + 1) }, () => list[pick(list.length)])),
    ];
    return {
      name: `${NAMES[pick(NAMES.length)]} ${NAMES[pick(NAMES.length)]}`,
      status: STATUSES[pick(3)],
      categoryId: categoryIds[CATEGORIES[pick(CATEGORIES.length)]],
      breed: pick(5) === 0 ? null : BREEDS[pick(BREEDS.length)],
      description: pick(3) === 0 ? null : some(DESCRIPTION_WORDS, 3).join(' ') || null,
      age: pick(4) === 0 ? null : pick(16),
      tags: some(TAGS, 3),
    };
  }

  beforeAll(async () => {
    t = await createTestApp();
    for (const name of CATEGORIES) {
      const res = await t.http.post('/v1/categories').set(t.admin).send({ name }).expect(201);
      categoryIds[name] = res.body.id as number;
    }
    // Seeded in two statements, not through the API: a few hundred creates would take most
    // of the file's time. They also exercise the triggers on many rows at once.
    const pick = seededRandom(28);
    const seed = Array.from({ length: SEEDED }, () => ({
      ...randomPet(pick),
      createdAt: TIMES[pick(TIMES.length)],
    }));
    await t.dataSource.query(
      'INSERT INTO tags (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING',
      [TAGS],
    );
    const inserted = await t.dataSource.query<{ id: number }[]>(
      `INSERT INTO pets (name, status, category_id, breed, description, age, created_at)
       SELECT name, status::pet_status, category_id, breed, description, age,
              to_timestamp(ms / 1000.0)
         FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::int4[],
                     $7::float8[]) WITH ORDINALITY
              AS u(name, status, category_id, breed, description, age, ms, n)
        ORDER BY n
       RETURNING id`,
      (['name', 'status', 'categoryId', 'breed', 'description', 'age', 'createdAt'] as const).map(
        (field) => seed.map((pet) => pet[field]),
      ),
    );
    // Identity values follow the insertion order.
    const ids = inserted.map((row) => Number(row.id)).sort((a, b) => a - b);
    seed.forEach((pet, n) => {
      const categoryName = CATEGORIES.find((name) => categoryIds[name] === pet.categoryId)!;
      model.push({ ...pet, id: ids[n], categoryName });
    });
    const links = model.flatMap((pet) => pet.tags.map((tag) => [pet.id, tag] as const));
    await linkTags(t, links);
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  /** Words some pet has, so that none is taken for a typo. */
  const wordsInUse = () => [...new Set(model.flatMap((pet) => [...wordsOf(pet)]))].sort();

  const filtersArb = () => {
    const words = wordsInUse();
    const q = fc.record(
      {
        include: fc.uniqueArray(fc.constantFrom(...words), { minLength: 1, maxLength: 2 }),
        exclude: fc.constantFrom(...words),
        or: fc.boolean(),
      },
      { requiredKeys: ['include'] },
    );
    const anyCase = (word: string) =>
      fc.constantFrom(word, word.toUpperCase(), word[0].toUpperCase() + word.slice(1));
    const time = fc
      .tuple(fc.constantFrom(...TIMES), fc.constantFrom(-1, 0, 1))
      .map(([at, shift]) => at + shift);
    // Each filter in one run of four: with all of them at once, nearly every page is empty.
    const sometimes = <T>(arb: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 });
    return fc
      .record({
        q: fc.oneof(q, fc.constant(undefined)),
        category: sometimes(fc.constantFrom(...CATEGORIES).chain(anyCase)),
        status: sometimes(fc.constantFrom(...STATUSES)),
        tag: sometimes(fc.uniqueArray(fc.constantFrom(...TAGS).chain(anyCase), { maxLength: 2 })),
        breed: sometimes(fc.constantFrom(...BREEDS).chain(anyCase)),
        minAge: sometimes(fc.integer({ min: 0, max: 20 })),
        maxAge: sometimes(fc.integer({ min: 0, max: 20 })),
        createdAfter: sometimes(time),
        createdBefore: sometimes(time),
        sort: fc.oneof(fc.constantFrom(...SORTS), fc.constant(undefined)),
      })
      .map((filters): Filters => {
        const fixed = Object.fromEntries(
          Object.entries(filters).filter(([, value]) => value !== undefined),
        ) as Filters;
        if (fixed.q?.or) delete fixed.q.exclude;
        if (fixed.q && fixed.q.exclude && fixed.q.include.includes(fixed.q.exclude)) {
          delete fixed.q.exclude;
        }
        if (
          fixed.minAge !== undefined &&
          fixed.maxAge !== undefined &&
          fixed.minAge > fixed.maxAge
        ) {
          [fixed.minAge, fixed.maxAge] = [fixed.maxAge, fixed.minAge];
        }
        if (fixed.sort === 'relevance' && !fixed.q) delete fixed.sort;
        return fixed;
      });
  };

  /** The filters' pets in the order the API must list them. */
  async function expected(filters: Filters): Promise<ModelPet[]> {
    const found = model.filter((pet) => matches(pet, filters));
    const sort = filters.sort ?? (filters.q ? 'relevance' : '-createdAt');
    if (sort === 'relevance') {
      const ranks = new Map(
        (
          await t.dataSource.query<{ id: number; rank: number }[]>(
            `SELECT pet_id AS id, ts_rank(document, websearch_to_tsquery('pet_search', $1)) AS rank
               FROM pet_documents`,
            [qText(filters.q!)],
          )
        ).map((row) => [Number(row.id), row.rank]),
      );
      return found.sort(order((pet) => ranks.get(pet.id)!, true));
    }
    const descending = sort.startsWith('-');
    const key = sort.replace('-', '');
    const keyOf =
      key === 'createdAt'
        ? (pet: ModelPet) => pet.createdAt
        : key === 'name'
          ? (pet: ModelPet) => pet.name.toLowerCase()
          : (pet: ModelPet) => pet.age;
    return found.sort(order(keyOf, descending));
  }

  const ids = (pets: { id: number }[]) => pets.map((pet) => pet.id);

  it('should list, count and page by offset and cursor like brute force', async () => {
    await fc.assert(
      fc.asyncProperty(
        filtersArb(),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 60 }),
        async (filters, limit, offset) => {
          const query = queryString(filters);
          const want = await expected(filters);

          const page = await t.http
            .get(`/v1/pets?${query}&limit=${limit}&offset=${offset}`)
            .set(t.user)
            .expect(200);
          expect(ids(page.body.pets)).toEqual(ids(want.slice(offset, offset + limit)));
          expect(page.body.pagination.total).toBe(want.length);

          const walked: number[] = [];
          let cursor: string | undefined;
          for (let pages = 0; pages < 3; pages++) {
            const res = await t.http
              .get(`/v1/pets?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
              .set(t.user)
              .expect(200);
            walked.push(...ids(res.body.pets));
            expect(res.body.pagination.total).toBe(want.length);
            cursor = res.body.pagination.nextCursor;
            if (!cursor) break;
          }
          expect(walked).toEqual(ids(want.slice(0, walked.length)));
          expect(walked.length).toBe(Math.min(want.length, 3 * limit));
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  /** `GET /pets/facets` computed over the model. */
  function expectedFacets(filters: Omit<Filters, 'sort'>) {
    const want = model.filter((pet) => matches(pet, filters));
    const countBy = <K extends string | number>(keys: K[]) => {
      const counts = new Map<K, number>();
      for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
      return counts;
    };
    const byCategory = countBy(want.map((pet) => pet.categoryName));
    const byTag = countBy(want.flatMap((pet) => pet.tags));
    return {
      total: want.length,
      status: {
        available: want.filter((pet) => pet.status === 'available').length,
        pending: want.filter((pet) => pet.status === 'pending').length,
        sold: want.filter((pet) => pet.status === 'sold').length,
      },
      categories: [...byCategory]
        .sort(([a, ca], [b, cb]) => cb - ca || compare(a, b))
        .map(([name, count]) => ({ id: categoryIds[name], name, count })),
      tags: [...byTag]
        .sort(([a, ca], [b, cb]) => cb - ca || compare(a, b))
        .slice(0, 20)
        .map(([name, count]) => ({ name, count })),
    };
  }

  it('should count facets like brute force', async () => {
    await fc.assert(
      fc.asyncProperty(filtersArb(), async ({ sort: _, ...filters }) => {
        const res = await t.http
          .get(`/v1/pets/facets?${queryString(filters)}`)
          .set(t.user)
          .expect(200);

        expect(res.body).toEqual(expectedFacets(filters));
        const [{ count }] = await t.dataSource.query<{ count: number }[]>(
          'SELECT count(*)::int AS count FROM pets',
        );
        expect(count).toBe(model.length);
      }),
      { numRuns: 80 },
    );
  }, 120_000);

  // Totals and facets read what the triggers keep beside the documents and the tag links
  // (the pet's status, category, tags and age): changed through the API, they must follow.
  it('should count and facet like brute force after pets are changed and deleted', async () => {
    const pick = seededRandom(30);
    const change = fc.record(
      {
        age: fc.option(fc.integer({ min: 0, max: 15 })),
        status: fc.constantFrom(...STATUSES),
        category: fc.constantFrom(...CATEGORIES),
        tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 3 }),
        breed: fc.constantFrom(...BREEDS),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.oneof(change, fc.constant('delete' as const))), {
          minLength: 1,
          maxLength: 4,
        }),
        filtersArb(),
        async (steps, { sort: _, ...filters }) => {
          for (const [n, step] of steps) {
            const pet = model[n % model.length];
            if (step === 'delete') {
              await t.http.delete(`/v1/pets/${pet.id}`).set(t.admin).expect(200);
              model.splice(model.indexOf(pet), 1);
              continue;
            }
            // A status the pet may move to from its own, else left as it is.
            const status =
              step.status && isAllowedMove(pet.status as PetStatus, step.status)
                ? step.status
                : undefined;
            const body = {
              ...(step.age === undefined ? {} : { age: step.age }),
              ...(status === undefined ? {} : { status }),
              ...(step.category === undefined ? {} : { categoryId: categoryIds[step.category] }),
              ...(step.tags === undefined ? {} : { tags: step.tags }),
              ...(step.breed === undefined ? {} : { breed: step.breed }),
            };
            if (Object.keys(body).length === 0) continue;
            await t.http.put(`/v1/pets/${pet.id}`).set(t.admin).send(body).expect(200);
            Object.assign(pet, {
              ...(step.age === undefined ? {} : { age: step.age }),
              ...(status === undefined ? {} : { status }),
              ...(step.category === undefined
                ? {}
                : { categoryId: categoryIds[step.category], categoryName: step.category }),
              ...(step.tags === undefined ? {} : { tags: step.tags }),
              ...(step.breed === undefined ? {} : { breed: step.breed }),
            });
          }
          const query = queryString(filters);
          const want = model.filter((pet) => matches(pet, filters));
          const page = await t.http.get(`/v1/pets?${query}&limit=1`).set(t.user).expect(200);
          expect(page.body.pagination.total).toBe(want.length);
          const facets = await t.http.get(`/v1/pets/facets?${query}`).set(t.user).expect(200);
          expect(facets.body).toEqual(expectedFacets(filters));
          // New pets for the deleted ones, so that every run has as many to search.
          while (model.length < SEEDED) await create(randomPet(pick));
        },
      ),
      { numRuns: 40 },
    );
  }, 180_000);

  it('should neither skip nor repeat a pet while pets are created between cursor pages', async () => {
    const pick = seededRandom(8);
    await fc.assert(
      fc.asyncProperty(filtersArb(), fc.integer({ min: 5, max: 25 }), async (filters, limit) => {
        const query = queryString(filters);
        const before = ids(await expected(filters));
        const seen: number[] = [];
        const created = new Set<number>();
        let cursor: string | undefined;
        for (let pages = 0; pages < 6; pages++) {
          const res = await t.http
            .get(`/v1/pets?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
            .set(t.user)
            .expect(200);
          seen.push(...ids(res.body.pets));
          cursor = res.body.pagination.nextCursor;
          if (!cursor) break;
          created.add((await create(randomPet(pick))).id);
        }

        expect(new Set(seen).size).toBe(seen.length);
        const old = seen.filter((id) => !created.has(id));
        expect(old).toEqual(before.slice(0, cursor ? old.length : before.length));
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
