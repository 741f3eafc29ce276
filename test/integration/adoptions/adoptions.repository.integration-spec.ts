import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import {
  ADOPTION_STATUSES,
  isOpen,
  OPEN_ADOPTION_STATUSES,
} from '../../../src/adoptions/adoption-status.js';
import { AdoptionsRepository } from '../../../src/adoptions/adoptions.repository.js';
import { PreparedStatements } from '../../../src/database/prepared-statements.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';
import { waitForLockWaiters } from '../../support/wait.js';

const PETS = 300;

describe(AdoptionsRepository.name, () => {
  let harness: RepositoryHarness;
  let sut: AdoptionsRepository;

  beforeAll(async () => {
    harness = await createRepositoryHarness([AdoptionsRepository]);
    sut = harness.get(AdoptionsRepository);
  });
  afterAll(() => harness?.close());

  it('should hold in SQL the open statuses TypeScript holds, for every status of the enum', async () => {
    const rows = await harness.query<{ status: string; open: boolean }>(
      `SELECT s::text AS status, adoption_is_open(s) AS open
         FROM unnest(enum_range(NULL::adoption_status)) s`,
    );
    expect(rows.map((row) => row.status)).toEqual([...ADOPTION_STATUSES]);
    expect(rows).toEqual(ADOPTION_STATUSES.map((status) => ({ status, open: isOpen(status) })));
    expect(rows.filter((row) => row.open).map((row) => row.status)).toEqual([
      ...OPEN_ADOPTION_STATUSES,
    ]);
  });

  it('should find a pet’s open adoption through the unique index of open adoptions', async () => {
    // Pets with a history of closed adoptions and one open each, analysed as a live table is.
    await harness.query(`INSERT INTO categories (name) VALUES ('Dogs')`);
    await harness.query(
      `INSERT INTO pets (name, category_id, status)
       SELECT 'Rex ' || n, (SELECT id FROM categories), 'pending' FROM generate_series(1, $1) n`,
      [PETS],
    );
    await harness.query(
      `INSERT INTO adoptions (pet_id, status, closed_at)
       SELECT p.id, s.status::adoption_status, CASE WHEN s.status = 'requested' THEN NULL ELSE now() END
         FROM pets p
        CROSS JOIN unnest(ARRAY['cancelled', 'rejected', 'expired', 'cancelled', 'requested']) s(status)`,
    );
    await harness.query('ANALYZE adoptions');
    const [pet] = await harness.query<{ id: number }>('SELECT min(id) AS id FROM pets');

    const statements = jest.spyOn(harness.get(PreparedStatements), 'query');
    const open = await sut.findOpenOfPet(pet.id);
    const [, sql, params] = statements.mock.calls[0];
    statements.mockRestore();
    expect(open).toMatchObject({ petId: Number(pet.id), status: 'requested' });

    // The app prepares the statement (PreparedStatements), and a prepared statement runs on a
    // generic plan, which knows no parameter's value: the index must be usable without them.
    expect(params).toEqual([pet.id]);
    const plan = await harness.transaction(async () => {
      await harness.query(`PREPARE open_of_pet AS ${sql}`);
      await harness.query('SET LOCAL plan_cache_mode = force_generic_plan');
      const [explained] = await harness.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (FORMAT JSON) EXECUTE open_of_pet(${Number(pet.id)})`,
      );
      await harness.query('DEALLOCATE open_of_pet');
      return JSON.stringify(explained['QUERY PLAN']);
    });
    expect(plan).toContain('"Index Name":"UQ_adoptions_open_pet"');
  });

  describe('startRequest', () => {
    let petIds: number[];
    const adopter = async (name: string) => {
      const [{ id }] = await harness.query<{ id: number }>(
        `INSERT INTO users (username, email, password_hash, role)
         VALUES ($1, $2, 'x', 'customer') RETURNING id`,
        [name, `${name}@example.com`],
      );
      return Number(id);
    };
    const insertAdoption = `INSERT INTO adoptions (pet_id, adopter_id, status, closed_at)
      VALUES ($1, $2, $3, CASE WHEN adoption_is_open($3::adoption_status) THEN NULL ELSE now() END)`;

    beforeAll(async () => {
      await harness.query('DELETE FROM adoptions');
      await harness.query(`INSERT INTO categories (name) VALUES ('Requested')`);
      petIds = (
        await harness.query<{ id: number }>(
          `INSERT INTO pets (name, category_id, status)
           SELECT 'Tom ' || n, (SELECT id FROM categories WHERE name = 'Requested'), 'pending'
             FROM generate_series(1, 4) n RETURNING id`,
        )
      ).map(({ id }) => Number(id));
    });

    it('should count the adopter’s open adoptions alone, and answer a new id each time', async () => {
      const [counted, other] = [await adopter('counted'), await adopter('other')];
      await harness.query(insertAdoption, [petIds[0], counted, 'requested']);
      await harness.query(insertAdoption, [petIds[1], counted, 'approved']);
      await harness.query(insertAdoption, [petIds[2], counted, 'cancelled']);
      await harness.query(insertAdoption, [petIds[2], other, 'requested']);

      const [first, second] = await harness.transaction(async () => [
        await sut.startRequest(counted),
        await sut.startRequest(counted),
      ]);
      expect(first.open).toBe(2);
      expect(second.open).toBe(2);
      expect(second.id).toBeGreaterThan(first.id);
      expect(await harness.transaction(() => sut.startRequest(other))).toMatchObject({ open: 1 });
    });

    // Sessions of their own: PGlite serves one session at a time.
    const onServer = process.env.DATABASE_URL ? it : it.skip;

    onServer(
      'should count an adoption committed while it waited for the adopter’s lock',
      async () => {
        const waiting = await adopter('waiting');
        const sessions = [0, 1].map(
          () => new pg.Client({ connectionString: harness.database.env.DATABASE_URL }),
        );
        const [first, second] = sessions;
        try {
          await Promise.all(sessions.map((session) => session.connect()));
          await first.query('BEGIN');
          await first.query('SELECT * FROM adoption_request_start($1)', [waiting]);
          await first.query(insertAdoption, [petIds[3], waiting, 'requested']);

          await second.query('BEGIN');
          const counted = second.query<{ open_count: number }>(
            'SELECT open_count FROM adoption_request_start($1)',
            [waiting],
          );
          await waitForLockWaiters(first, 1, 'adoption_request_start');
          await first.query('COMMIT');

          // A plain statement takes its snapshot before the lock inside it, and would count 0.
          expect((await counted).rows).toEqual([{ open_count: 1 }]);
          await second.query('ROLLBACK');
        } finally {
          await Promise.all(sessions.map((session) => session.end()));
        }
      },
    );
  });
});
