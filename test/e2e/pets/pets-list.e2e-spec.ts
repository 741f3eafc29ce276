import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { createPet } from '../../support/pets.js';
import { createTestDatabase } from '../../support/test-database.js';

interface PetBody {
  id: number;
  createdAt: string;
  status: string;
  category: { name: string };
  tags: { name: string }[];
}

describe('Pet list (e2e)', () => {
  let t: TestApp;
  const STATUSES = ['available', 'pending', 'sold'];
  // 3 categories x 3 statuses, 7 pets each (63), half of them sharing one createdAt
  // so that the id tie-breaker decides their order.
  const PER_CELL = 7;

  beforeAll(async () => {
    t = await createTestApp();
    for (const name of ['Dogs', 'Cats', 'Birds']) {
      const category = (await t.http.post('/v1/categories').set(t.admin).send({ name })).body;
      for (const status of STATUSES) {
        for (let i = 0; i < PER_CELL; i++) {
          await t.http
            .post('/v1/pets')
            .set(t.user)
            .send({
              name: `${name}-${status}-${i}`,
              categoryId: category.id,
              status,
              tags: ['a', 'b'],
            })
            .expect(201);
        }
      }
    }
    await t.dataSource.query(
      "UPDATE pets SET created_at = '2026-01-01T00:00:00.000Z' WHERE id % 2 = 0",
    );
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  const list = (query: string) => t.http.get(`/v1/pets?${query}`).set(t.user);

  async function walkByOffset(filters: string, limit: number): Promise<PetBody[]> {
    const pets: PetBody[] = [];
    for (let offset = 0; ; offset += limit) {
      const res = await list(`${filters}&limit=${limit}&offset=${offset}`).expect(200);
      pets.push(...(res.body.pets as PetBody[]));
      if (!res.body.pagination.hasMore) return pets;
    }
  }

  it('should default to 20 pets, newest first, with an exact total', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.pets).toHaveLength(20);
    expect(res.body.pagination).toEqual({
      limit: 20,
      offset: 0,
      total: 63,
      hasMore: true,
      nextCursor: expect.any(String),
    });
  });

  it('should order by createdAt desc, then id desc, across every page', async () => {
    const pets = await walkByOffset('', 10);
    expect(pets).toHaveLength(63);
    const sorted = [...pets].sort(
      (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id - a.id,
    );
    expect(pets.map((p) => p.id)).toEqual(sorted.map((p) => p.id));
    expect(new Set(pets.map((p) => p.id)).size).toBe(63);
  });

  it('should return full pages with their tags despite the to-many join', async () => {
    const res = await list('limit=15&offset=15');
    expect(res.body.pets).toHaveLength(15);
    for (const pet of res.body.pets as PetBody[]) {
      expect(pet.tags.map((t) => t.name)).toEqual(['a', 'b']);
    }
  });

  it('should report hasMore false and no cursor on the last page', async () => {
    const res = await list('limit=10&offset=60');
    expect(res.body.pets).toHaveLength(3);
    expect(res.body.pagination).toEqual({ limit: 10, offset: 60, total: 63, hasMore: false });
  });

  it('should return an empty page past the end', async () => {
    const res = await list('offset=500');
    expect(res.body).toEqual({
      pets: [],
      pagination: { limit: 20, offset: 500, total: 63, hasMore: false },
    });
  });

  it('should filter by category name case-insensitively and by status, with exact totals', async () => {
    const res = await list('category=dOgS&status=pending&limit=5');
    expect(res.body.pagination).toMatchObject({ total: PER_CELL, hasMore: true });
    for (const pet of res.body.pets as PetBody[]) {
      expect(pet.category.name).toBe('Dogs');
      expect(pet.status).toBe('pending');
    }
    const byStatus = await list('status=sold');
    expect(byStatus.body.pagination.total).toBe(3 * PER_CELL);
    const byCategory = await list('category=Cats');
    expect(byCategory.body.pagination.total).toBe(3 * PER_CELL);
  });

  it('should answer an unknown category with an empty page, not an error', async () => {
    const res = await list('category=Dragons');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pets: [],
      pagination: { limit: 20, offset: 0, total: 0, hasMore: false },
    });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1000001', 'offset'],
    ['offset=2.5', 'offset'],
    ['status=lost', 'status'],
    ['colour=red', 'colour'],
  ])('should refuse %s with 400 VALIDATION_ERROR, never clamping', async (query, field) => {
    expectValidationError(await list(query), [field]);
  });

  it('should accept the extreme allowed values', async () => {
    expect((await list('limit=100&offset=1000000')).status).toBe(200);
    expect((await list('limit=1&offset=0')).body.pets).toHaveLength(1);
  });

  describe('keyset cursor', () => {
    async function walkByCursor(filters: string, limit: number): Promise<PetBody[]> {
      const pets: PetBody[] = [];
      let res = await list(`${filters}&limit=${limit}`).expect(200);
      const total = res.body.pagination.total as number;
      for (;;) {
        pets.push(...(res.body.pets as PetBody[]));
        if (!res.body.pagination.nextCursor) return pets;
        expect(res.body.pagination.hasMore).toBe(true);
        const cursor = encodeURIComponent(res.body.pagination.nextCursor as string);
        res = await list(`${filters}&limit=${limit}&cursor=${cursor}`).expect(200);
        expect(res.body.pagination.total).toBe(total);
      }
    }

    it('should walk the same pets in the same order as offset paging', async () => {
      expect((await walkByCursor('', 8)).map((p) => p.id)).toEqual(
        (await walkByOffset('', 8)).map((p) => p.id),
      );
    });

    it('should keep the filters along the walk', async () => {
      const pets = await walkByCursor('category=Birds&status=available', 2);
      expect(pets).toHaveLength(PER_CELL);
    });

    it('should report the position of a cursor page as its offset', async () => {
      const first = await list('limit=10');
      const second = await list(`limit=10&cursor=${first.body.pagination.nextCursor}`);
      expect(second.body.pagination).toMatchObject({
        limit: 10,
        offset: 10,
        total: 63,
        hasMore: true,
      });
    });

    it('should refuse a malformed cursor', async () => {
      expectValidationError(await list('cursor=not-a-cursor'), ['cursor']);
    });

    // Cursors a client could forge that the database would not take: 400, never 500.
    it.each([
      ['the date "1"', '["1",1,0,null,null]'],
      ['a date without milliseconds', '["2026-01-01T00:00:00Z",1,0,null,null]'],
      ['year 0', '["0000-01-01T00:00:00.000Z",1,0,null,null]'],
      ['an id beyond int64', '["2026-01-01T00:00:00.000Z",1e19,0,null,null]'],
      ['a negative offset', '["2026-01-01T00:00:00.000Z",1,-1,null,null]'],
    ])('should refuse a forged cursor with %s', async (_label, json) => {
      const cursor = Buffer.from(json).toString('base64url');
      expectValidationError(await list(`cursor=${cursor}`), ['cursor']);
    });

    it('should refuse a cursor together with offset', async () => {
      const first = await list('limit=10');
      expectValidationError(await list(`offset=0&cursor=${first.body.pagination.nextCursor}`), [
        'cursor',
      ]);
    });

    it('should refuse a cursor used with other filters', async () => {
      const first = await list('limit=2&status=sold');
      expectValidationError(
        await list(`status=pending&cursor=${first.body.pagination.nextCursor}`),
        ['cursor'],
      );
    });
  });

  describe('cursor across a restart', () => {
    // Development: no JWT_SECRET, the secret the first start kept in the data directory.
    it('should accept after a restart on the same data directory a cursor issued before it', async () => {
      const database = await createTestDatabase();
      try {
        const first = await createTestApp({ JWT_SECRET: undefined }, { database });
        let cursor: string;
        try {
          await createPet(first);
          await createPet(first);
          const page = await first.http.get('/v1/pets?limit=1').set(first.user).expect(200);
          cursor = page.body.pagination.nextCursor as string;
        } finally {
          await first.close();
        }
        const restarted = await createTestApp({ JWT_SECRET: undefined }, { database });
        try {
          const page = await restarted.http
            .get(`/v1/pets?limit=1&cursor=${cursor}`)
            .set(restarted.user)
            .expect(200);
          expect(page.body.pets).toHaveLength(1);
        } finally {
          await restarted.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
});
