import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
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
});
