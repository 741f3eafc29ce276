import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { ShardPetCounts1796200000000 } from '../../../src/database/migrations/1796200000000-ShardPetCounts.js';
import { PreparedStatements } from '../../../src/database/prepared-statements.js';
import { PetsRepository } from '../../../src/pets/pets.repository.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

/*
 * Totals and the inventory read the counters of `pet_counts`, which each session keeps in
 * a shard of its own (docs/performance.md, "Counters in shards"): sessions creating pets of
 * the same category and status no longer wait for each other, and the counts stay exact
 * whichever session counted a pet in and which one out.
 */
describe(ShardPetCounts1796200000000.name, () => {
  let harness: RepositoryHarness;
  let categoryId: number;
  const migration = new ShardPetCounts1796200000000();

  const run = (direction: 'up' | 'down') => harness.migrate(migration, direction);
  const insertPet = `INSERT INTO pets (name, category_id, status) VALUES ('Rex', $1, 'available') RETURNING id`;
  /** What the API reads: the list's total and the inventory's count, for the category. */
  const counted = async () => {
    const pets = harness.get(PetsRepository);
    const { total } = await pets.findPage({
      category: 'Counted',
      status: 'available',
      limit: 1,
      offset: 0,
    });
    const inventory = (await pets.inventory()).find((row) => row.id === categoryId);
    return { total, inventory: inventory?.available };
  };

  beforeAll(async () => {
    harness = await createRepositoryHarness([PetsRepository, PreparedStatements]);
  });
  afterAll(() => harness?.close());
  beforeEach(async () => {
    await harness.query('DELETE FROM pets');
    await harness.query('DELETE FROM categories');
    [{ id: categoryId }] = await harness.query<{ id: number }>(
      `INSERT INTO categories (name) VALUES ('Counted') RETURNING id`,
    );
  });

  // Sessions of their own: PGlite serves one session at a time.
  const onServer = process.env.DATABASE_URL ? describe : describe.skip;

  onServer('sessions of their own', () => {
    let sessions: pg.Client[];

    /** Two sessions counting in different shards. */
    beforeEach(async () => {
      sessions = [];
      const shards = new Set<number>();
      while (shards.size < 2) {
        const session = new pg.Client({ connectionString: harness.database.env.DATABASE_URL });
        await session.connect();
        const [{ shard }] = (
          await session.query<{ shard: number }>('SELECT pg_backend_pid() % 16 AS shard')
        ).rows;
        if (shards.has(shard)) {
          await session.end();
        } else {
          shards.add(shard);
          sessions.push(session);
        }
      }
    });
    afterEach(async () => {
      await Promise.all(sessions.map((session) => session.end()));
    });

    it('should let a session create a pet while another’s create of the same category and status is uncommitted', async () => {
      const [first, second] = sessions;
      // A pet's new words wait for each other (search_words), a word already known does not.
      await harness.query(insertPet, [categoryId]);
      await first.query('BEGIN');
      await first.query(insertPet, [categoryId]);
      // Waiting for the first session's counter row would end in 55P03 (lock_not_available).
      await second.query(`SET lock_timeout = '2s'`);

      await second.query(insertPet, [categoryId]);
      await first.query('COMMIT');

      expect(await counted()).toEqual({ total: 3, inventory: 3 });
    });

    it('should keep the count exact when a pet counted by one session is deleted by another', async () => {
      const [first, second] = sessions;
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await first.query(insertPet, [categoryId])).rows[0].id);

      await second.query('DELETE FROM pets WHERE id = ANY($1)', [ids.slice(0, 2)]);

      expect(await counted()).toEqual({ total: 1, inventory: 1 });
      // Sold by the second session: out of the available count.
      await second.query(`UPDATE pets SET status = 'sold' WHERE id = $1`, [ids[2]]);
      expect(await counted()).toEqual({ total: 0, inventory: 0 });
    });

    it('should fold the shards into one counter per category and status when run down, with the same counts, and split them again up', async () => {
      const [first, second] = sessions;
      for (const session of [first, second, first]) await session.query(insertPet, [categoryId]);
      const [{ id }] = await harness.query<{ id: number }>(insertPet, [categoryId]);
      await second.query('DELETE FROM pets WHERE id = $1', [id]);

      await run('down');
      try {
        expect(
          await harness.query(`SELECT status, count::int FROM pet_counts WHERE category_id = $1`, [
            categoryId,
          ]),
        ).toEqual([{ status: 'available', count: 3 }]);
        expect(await counted()).toEqual({ total: 3, inventory: 3 });
      } finally {
        await run('up');
      }

      await second.query(insertPet, [categoryId]);
      expect(await counted()).toEqual({ total: 4, inventory: 4 });
    });
  });

  it('should keep the counts through the migration down and up again', async () => {
    for (let i = 0; i < 3; i++) await harness.query(insertPet, [categoryId]);

    await run('down');
    try {
      expect(await counted()).toEqual({ total: 3, inventory: 3 });
      await harness.query(insertPet, [categoryId]);
    } finally {
      await run('up');
    }

    await harness.query(insertPet, [categoryId]);
    expect(await counted()).toEqual({ total: 5, inventory: 5 });
  });
});
