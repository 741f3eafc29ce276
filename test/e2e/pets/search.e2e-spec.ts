import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, expectValidationError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

interface PetBody {
  id: number;
  name: string;
}

describe('Pet search (e2e)', () => {
  let t: TestApp;
  /** Pet ids by name. */
  const pets: Record<string, number> = {};
  let dogs: { id: number; name: string };
  let cats: { id: number; name: string };

  async function category(name: string) {
    const res = await t.http.post('/v1/categories').set(t.admin).send({ name }).expect(201);
    return { id: res.body.id as number, name };
  }

  async function pet(name: string, categoryId: number, fields: Record<string, unknown> = {}) {
    const res = await t.http
      .post('/v1/pets')
      .set(t.user)
      .send({ name, categoryId, status: 'available', ...fields })
      .expect(201);
    pets[name] = res.body.id as number;
  }

  beforeAll(async () => {
    t = await createTestApp();
    dogs = await category('Dogs');
    cats = await category('Cats');
    // Both words in the name (weight A), in breed and tags (B), in the description (C).
    await pet('Friendly Labrador', dogs.id, { age: 3 });
    await pet('Rex', dogs.id, { breed: 'Labrador', tags: ['friendly'], age: 5 });
    await pet('Bella', dogs.id, { description: 'A friendly labrador from the farm', age: 1 });
    await pet('Lonely Labrador', dogs.id, { status: 'pending' });
    await pet('Pup', dogs.id, { breed: 'Beagle', description: 'A labrador puppy, really' });
    await pet('Scout', dogs.id, { description: 'Part puppy, part labrador' });
    await pet('Crème Brûlée', cats.id, { breed: 'Siamese', tags: ['Calm', 'small'], age: 2 });
    await pet('Tom', cats.id, { breed: 'Poodle', tags: ['calm'], status: 'sold' });
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  const list = (query: string) => t.http.get(`/v1/pets?${query}`).set(t.user);
  const names = async (query: string) => {
    const res = await list(query).expect(200);
    return (res.body.pets as PetBody[]).map((p) => p.name);
  };
  const idsOf = (...named: string[]) => named.map((name) => pets[name]);
  const pageIds = (body: { pets: PetBody[] }) => body.pets.map((p) => p.id);

  describe('q', () => {
    it('should rank a multi-word match in the name above breed and tags, above the description', async () => {
      expect(await names('q=friendly%20labrador')).toEqual(['Friendly Labrador', 'Rex', 'Bella']);
    });

    it('should match a phrase only where its words are adjacent', async () => {
      expect(await names(`q=${encodeURIComponent('"labrador puppy"')}`)).toEqual(['Pup']);
    });

    it('should leave out the pets with an excluded word', async () => {
      expect(await names('q=labrador%20-puppy%20-friendly')).toEqual(['Lonely Labrador']);
    });

    it('should match either word with `or`', async () => {
      expect((await names('q=poodle%20or%20beagle&sort=name')).sort()).toEqual(['Pup', 'Tom']);
    });

    it('should find Labrador for the misspelt `labrdor`', async () => {
      const found = await names('q=labrdor&sort=name');
      expect(found).toEqual([
        'Bella',
        'Friendly Labrador',
        'Lonely Labrador',
        'Pup',
        'Rex',
        'Scout',
      ]);
    });

    it('should ignore accents and stem English words', async () => {
      expect(await names('q=creme%20brulee')).toEqual(['Crème Brûlée']);
      // As relevant as each other: the later one (higher id) first.
      expect(await names('q=puppies')).toEqual(['Scout', 'Pup']);
    });

    it('should search the category name and tags', async () => {
      expect(await names('q=cats&sort=name')).toEqual(['Crème Brûlée', 'Tom']);
      expect(await names('q=calm&sort=name')).toEqual(['Crème Brûlée', 'Tom']);
    });

    it('should match no pet for common words only', async () => {
      const res = await list('q=the%20and%20a').expect(200);
      expect(res.body).toEqual({
        pets: [],
        pagination: { limit: 20, offset: 0, total: 0, hasMore: false },
      });
    });

    it('should follow every change of what a pet is found by', async () => {
      const birds = await category('Birds');
      const res = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Kiwi', categoryId: birds.id, status: 'available', tags: ['noisy'] })
        .expect(201);
      const id = res.body.id as number;
      const found = async (q: string) => pageIds((await list(`q=${q}`).expect(200)).body);
      expect(await found('noisy')).toEqual([id]);

      await t.http
        .put(`/v1/pets/${id}`)
        .set(t.user)
        .send({ name: 'Polly', breed: 'Cockatoo', description: 'Talks a lot', tags: ['quiet'] })
        .expect(200);
      expect(await found('kiwi')).toEqual([]);
      expect(await found('noisy')).toEqual([]);
      expect(await found('polly%20cockatoo%20talks%20quiet')).toEqual([id]);

      await t.http
        .put(`/v1/categories/${birds.id}`)
        .set(t.admin)
        .send({ name: 'Parrots' })
        .expect(200);
      expect(await found('birds')).toEqual([]);
      expect(await found('parrots')).toEqual([id]);

      await t.http.delete(`/v1/pets/${id}`).set(t.user).expect(200);
      expect(await found('polly')).toEqual([]);
    });

    it('should count the matches exactly, and page a search by cursor', async () => {
      const first = await list('q=labrador&limit=4').expect(200);
      expect(first.body.pagination).toEqual({
        limit: 4,
        offset: 0,
        total: 6,
        hasMore: true,
        nextCursor: expect.any(String),
      });
      const second = await list(
        `q=labrador&limit=4&cursor=${first.body.pagination.nextCursor}`,
      ).expect(200);
      expect(second.body.pagination).toEqual({ limit: 4, offset: 4, total: 6, hasMore: false });
      const walked = [...pageIds(first.body), ...pageIds(second.body)];
      const byOffset = pageIds((await list('q=labrador&limit=6').expect(200)).body);
      expect(walked).toEqual(byOffset);
    });

    it('should accept 10 terms, words, phrases and exclusions together, `or` not counted', async () => {
      const q = 'friendly labrador "friendly labrador" -puppy -farm -calm -small -tom -rex -bella';
      expect(await names(`q=${encodeURIComponent(q)}`)).toEqual(['Friendly Labrador']);
      const either = 'tom or rex or bella or scout or tom or rex or bella or scout or tom or rex';
      expect(await names(`q=${encodeURIComponent(either)}&sort=name`)).toEqual([
        'Bella',
        'Rex',
        'Scout',
        'Tom',
      ]);
    });

    it('should correct at most 3 misspelt words of a q, in the order written', async () => {
      const found = await names(
        `q=${encodeURIComponent('beagel or labrdor or poodel or siamse')}&sort=name`,
      );
      // siamse, the fourth, must match as written: Crème Brûlée (a Siamese) is not found.
      expect(found).toEqual([
        'Bella',
        'Friendly Labrador',
        'Lonely Labrador',
        'Pup',
        'Rex',
        'Scout',
        'Tom',
      ]);
      expect(await names('q=siamse')).toEqual(['Crème Brûlée']);
    });

    it('should refuse a cursor of another search', async () => {
      const first = await list('q=labrador&limit=2').expect(200);
      expectValidationError(
        await list(`q=friendly&limit=2&cursor=${first.body.pagination.nextCursor}`),
        ['cursor'],
      );
    });
  });

  describe('filters and sorts', () => {
    it('should filter by all tags, any case', async () => {
      expect(await names('tag=CALM&tag=small')).toEqual(['Crème Brûlée']);
      expect(await names('tag=calm&sort=name')).toEqual(['Crème Brûlée', 'Tom']);
    });

    it('should match no pet for a tag no pet carries, beside one that some do', async () => {
      const res = await list('tag=calm&tag=unheard-of').expect(200);
      expect(res.body.pets).toEqual([]);
      expect(res.body.pagination.total).toBe(0);
      const facets = await t.http.get('/v1/pets/facets?tag=unheard-of').set(t.user).expect(200);
      expect(facets.body.total).toBe(0);
    });

    it('should filter by breed, any case, exactly', async () => {
      expect(await names('breed=LABRADOR')).toEqual(['Rex']);
      expect(await names('breed=Labra')).toEqual([]);
    });

    it('should filter by an inclusive age range, pets without an age never matching', async () => {
      expect(await names('minAge=2&maxAge=3&sort=age')).toEqual([
        'Crème Brûlée',
        'Friendly Labrador',
      ]);
      expect(await names('minAge=0&sort=-age')).toEqual([
        'Rex',
        'Friendly Labrador',
        'Crème Brûlée',
        'Bella',
      ]);
    });

    it("should count a tag's pets by age when a create wrote the links without the age", async () => {
      // The previous release's create, during a rolling update: pet and links in one
      // statement, the links without the pet's age.
      await t.dataSource.query(
        `WITH pet AS (INSERT INTO pets (name, category_id, status, age)
                      VALUES ('Old release pet', $1, 'available', 7) RETURNING id)
         INSERT INTO pet_tags (pet_id, tag_id)
         SELECT pet.id, tags.id FROM pet, tags WHERE tags.name = 'friendly'`,
        [dogs.id],
      );
      const res = await list('tag=friendly&minAge=6&limit=1').expect(200);
      expect((res.body.pets as PetBody[]).map((p) => p.name)).toEqual(['Old release pet']);
      expect(res.body.pagination.total).toBe(1);
      await t.dataSource.query("DELETE FROM pets WHERE name = 'Old release pet'");
    });

    it("should count a tag's pets by age when a link to an existing pet was written without the age", async () => {
      // The previous release's update, linking a tag to a pet that exists already.
      const [{ id }] = await t.dataSource.query(
        `INSERT INTO pets (name, category_id, status, age)
         VALUES ('Old release pet', $1, 'available', 7) RETURNING id`,
        [dogs.id],
      );
      await t.dataSource.query(
        `INSERT INTO pet_tags (pet_id, tag_id) SELECT $1, id FROM tags WHERE name = 'friendly'`,
        [id],
      );
      const res = await list('tag=friendly&minAge=6&limit=1').expect(200);
      expect((res.body.pets as PetBody[]).map((p) => p.name)).toEqual(['Old release pet']);
      expect(res.body.pagination.total).toBe(1);
      await t.dataSource.query('DELETE FROM pets WHERE id = $1', [id]);
    });

    it('should sort by age either way, pets without an age last, ties by id descending', async () => {
      const ageless = idsOf('Tom', 'Scout', 'Pup', 'Lonely Labrador');
      expect(await names('sort=age&category=dogs')).toEqual([
        'Bella',
        'Friendly Labrador',
        'Rex',
        'Scout',
        'Pup',
        'Lonely Labrador',
      ]);
      const desc = await list('sort=-age&limit=100').expect(200);
      expect(pageIds(desc.body).slice(-4)).toEqual(ageless);
    });

    it('should sort by name, in lower case, either way', async () => {
      expect(await names('category=cats&sort=name')).toEqual(['Crème Brûlée', 'Tom']);
      expect(await names('category=cats&sort=-name')).toEqual(['Tom', 'Crème Brûlée']);
    });

    it('should filter by creation time, both bounds exclusive', async () => {
      const all = (await list('limit=100&sort=createdAt').expect(200)).body.pets as (PetBody & {
        createdAt: string;
      })[];
      const middle = all[3].createdAt;
      const after = (await list(`limit=100&sort=createdAt&createdAfter=${middle}`).expect(200)).body
        .pets as (PetBody & { createdAt: string })[];
      expect(after.map((p) => p.id)).toEqual(
        all.filter((p) => Date.parse(p.createdAt) > Date.parse(middle)).map((p) => p.id),
      );
      const before = (
        await list(
          `limit=100&createdBefore=${encodeURIComponent('2000-01-01T01:00:00+01:00')}`,
        ).expect(200)
      ).body;
      expect(before.pets).toEqual([]);
      expect(before.pagination.total).toBe(0);
    });
  });

  describe('bad values', () => {
    it.each([
      ['sort=relevance', 'sort'],
      ['sort=price', 'sort'],
      ['minAge=5&maxAge=4', 'minAge'],
      ['minAge=-1', 'minAge'],
      ['maxAge=101', 'maxAge'],
      ['minAge=1.5', 'minAge'],
      [Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join('&'), 'tag'],
      [`tag=${'x'.repeat(51)}`, 'tag'],
      ['tag=', 'tag'],
      [`q=${'a'.repeat(201)}`, 'q'],
      ['q=', 'q'],
      ['q=%20%20', 'q'],
      [`q=${encodeURIComponent('a b c d e f g h i j k')}`, 'q'],
      [`q=${encodeURIComponent('a or "b c" -d e f g h i j -"k l" m')}`, 'q'],
      [`q=${encodeURIComponent('a,b,c,d,e,f,g,h,i,j,k')}`, 'q'],
      ['q=-zzz', 'q'],
      [`q=${encodeURIComponent('-zzz -"big dog" or -cat')}`, 'q'],
      ['breed=', 'breed'],
      [`breed=${'b'.repeat(101)}`, 'breed'],
      ['createdAfter=yesterday', 'createdAfter'],
      ['createdAfter=2026-01-01T00:00:00', 'createdAfter'],
      ['createdBefore=2026-02-30T00:00:00Z', 'createdBefore'],
      ['createdBefore=0000-01-01T00:00:00Z', 'createdBefore'],
    ])('should refuse %s, naming %s', async (query, field) => {
      expectValidationError(await list(query), [field]);
    });

    it('should refuse the facets of bad filters, and paging or sorting them', async () => {
      const facets = (query: string) => t.http.get(`/v1/pets/facets?${query}`).set(t.user);
      expectValidationError(await facets('minAge=5&maxAge=4'), ['minAge']);
      expectValidationError(await facets(`q=${'a'.repeat(201)}`), ['q']);
      expectValidationError(await facets('q=-zzz'), ['q']);
      expectValidationError(await facets('sort=name'), ['sort']);
      expectValidationError(await facets('limit=10'), ['limit']);
    });
  });

  describe('facets', () => {
    it('should count the matching pets by status, category and tag', async () => {
      const res = await t.http
        .get('/v1/pets/facets?q=calm%20or%20labrador')
        .set(t.user)
        .expect(200);
      expect(res.body).toEqual({
        total: 8,
        status: { available: 6, pending: 1, sold: 1 },
        categories: [
          { id: dogs.id, name: 'Dogs', count: 6 },
          { id: cats.id, name: 'Cats', count: 2 },
        ],
        tags: [
          { name: 'Calm', count: 1 },
          { name: 'calm', count: 1 },
          { name: 'friendly', count: 1 },
          { name: 'small', count: 1 },
        ],
      });
    });

    it('should answer zeros and empty lists when nothing matches', async () => {
      const res = await t.http.get('/v1/pets/facets?breed=unicorn').set(t.user).expect(200);
      expect(res.body).toEqual({
        total: 0,
        status: { available: 0, pending: 0, sold: 0 },
        categories: [],
        tags: [],
      });
    });

    it('should count the default views from counters as the pets count, through every kind of change', async () => {
      const birds = await category('Counted birds');
      const created = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Polly', categoryId: birds.id, status: 'available', tags: ['Calm', 'loud'] })
        .expect(201);
      const id = created.body.id as number;
      await t.http
        .put(`/v1/pets/${id}`)
        .set(t.user)
        .send({ tags: ['loud', 'green'] })
        .expect(200);
      await t.http.put(`/v1/pets/${id}`).set(t.user).send({ status: 'pending' }).expect(200);
      await t.http.put(`/v1/pets/${id}`).set(t.user).send({ categoryId: dogs.id }).expect(200);
      const gone = await t.http
        .post('/v1/pets')
        .set(t.user)
        .send({ name: 'Gone', categoryId: birds.id, status: 'sold', tags: ['loud'] })
        .expect(201);
      await t.http.delete(`/v1/pets/${gone.body.id}`).set(t.user).expect(200);
      // A filter that every pet passes makes the facets count the pets themselves.
      const everyPet = 'createdBefore=2999-01-01T00:00:00Z';
      for (const view of ['', 'category=dogs', 'status=pending', 'category=Cats&status=sold']) {
        const counted = await t.http.get(`/v1/pets/facets?${view}`).set(t.user).expect(200);
        const scanned = await t.http
          .get(`/v1/pets/facets?${view}${view ? '&' : ''}${everyPet}`)
          .set(t.user)
          .expect(200);
        expect({ view, ...counted.body }).toEqual({ view, ...scanned.body });
      }
    });

    it('should be for signed-in callers only', async () => {
      expectError(await t.http.get('/v1/pets/facets'), 401, 'AUTHENTICATION_REQUIRED');
    });
  });
});
