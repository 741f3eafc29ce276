import { DataSource } from 'typeorm';
import { databaseConfig } from '../config/database.config.js';
import { NO_ACTOR } from '../pets/pet-actor.js';
import type { PetStatus } from '../pets/pet-status.js';
import { PetsRepository } from '../pets/pets.repository.js';
import { DataDirectoryInUseError } from '../database/data-dir-lock.js';
import { openMigrated } from '../database/migrate.js';
import { PreparedStatements } from '../database/prepared-statements.js';
import { hostOf } from '../database/transactions.js';
import { resolveDatabase } from '../database/typeorm-options.js';

// Demo data for people trying the service. Idempotent: categories are matched by name
// and a category's demo pets are only added when it has none.
const DEMO: Record<string, { description: string; pets: [string, string, PetStatus][] }> = {
  Dogs: {
    description: 'Loyal companions',
    pets: [
      ['Rex', 'Beagle', 'available'],
      ['Bella', 'Labrador', 'pending'],
      ['Max', 'Border Collie', 'sold'],
    ],
  },
  Cats: {
    description: 'Independent and curious',
    pets: [
      ['Luna', 'Siamese', 'available'],
      ['Milo', 'Maine Coon', 'available'],
    ],
  },
  Birds: { description: 'Feathered friends', pets: [['Kiwi', 'Budgerigar', 'available']] },
};

/**
 * The demo pets are written by the pets' own statement, so that each gets its `pet.created`
 * in its history, with no user (made outside the API), like any change.
 */
async function seed(dataSource: DataSource): Promise<void> {
  const prepared = new PreparedStatements(false);
  for (const [name, { description, pets }] of Object.entries(DEMO)) {
    await dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO categories (name, description) VALUES ($1, $2)
         ON CONFLICT ((lower(name))) DO NOTHING`,
        [name, description],
      );
      const [{ id }] = await manager.query<{ id: number }[]>(
        'SELECT id FROM categories WHERE lower(name) = lower($1)',
        [name],
      );
      const [{ count }] = await manager.query<{ count: number }[]>(
        'SELECT count(*) AS count FROM pets WHERE category_id = $1',
        [id],
      );
      if (count > 0) return;
      const petsRepository = new PetsRepository(hostOf(manager), prepared);
      for (const [petName, breed, status] of pets) {
        await petsRepository.insert({ name: petName, categoryId: id, status, breed }, [], NO_ACTOR);
      }
      console.log(`seed: ${name}: ${pets.length} pets`);
    });
  }
}

const BULK_CATEGORIES = 20;
const BULK_BATCH = 100_000;

/**
 * `--pets N`: N synthetic pets across 20 categories and the three statuses, in bulk SQL.
 * The per-row counter triggers are switched off for the load and the counters rebuilt
 * once at the end, inside the same transaction. These pets get no history (nor webhook
 * deliveries): they are benchmark data, and N events would double the load.
 */
async function seedBulk(dataSource: DataSource, pets: number): Promise<void> {
  const started = Date.now();
  await dataSource.query(
    `INSERT INTO categories (name, description)
     SELECT 'Bulk ' || n, 'Synthetic category ' || n FROM generate_series(1, $1) AS n
     ON CONFLICT ((lower(name))) DO NOTHING`,
    [BULK_CATEGORIES],
  );
  const categoryIds = (
    await dataSource.query<{ id: number }[]>(
      "SELECT id FROM categories WHERE name LIKE 'Bulk %' ORDER BY id",
    )
  ).map((row) => row.id);
  await dataSource.transaction(async (manager) => {
    await manager.query('ALTER TABLE pets DISABLE TRIGGER USER');
    for (let done = 0; done < pets; done += BULK_BATCH) {
      const batch = Math.min(BULK_BATCH, pets - done);
      await manager.query(
        `INSERT INTO pets (name, category_id, status, age, breed, created_at, updated_at)
         SELECT 'Pet ' || ($1 + n),
                ($2::bigint[])[1 + (n % array_length($2::bigint[], 1))],
                (ARRAY['available', 'pending', 'sold']::pet_status[])[1 + (n / 7) % 3],
                n % 20, 'Breed ' || (n % 50),
                now() - make_interval(secs => $1 + n), now() - make_interval(secs => $1 + n)
           FROM generate_series(1, $3) AS n`,
        [done, categoryIds, batch],
      );
      console.log(
        `seed: ${done + batch} / ${pets} pets (${Math.round((Date.now() - started) / 1000)} s)`,
      );
    }
    await manager.query('ALTER TABLE pets ENABLE TRIGGER USER');
    await manager.query('DELETE FROM pet_counts');
    await manager.query(
      `INSERT INTO pet_counts (category_id, status, count)
       SELECT category_id, status, count(*) FROM pets GROUP BY category_id, status`,
    );
    // What the search triggers would have written (migration AddPetSearch), in bulk too.
    await manager.query(
      `INSERT INTO pet_documents (pet_id, document)
       SELECT id, pet_document(id, name, breed, description, category_id) FROM pets
       ON CONFLICT (pet_id) DO NOTHING`,
    );
    await manager.query(
      `SELECT search_words_add(ARRAY(SELECT DISTINCT concat_ws(' ', name, breed) FROM pets))`,
    );
  });
  await dataSource.query('ANALYZE');
  console.log(`seed: ${pets} pets in ${Math.round((Date.now() - started) / 1000)} s`);
}

function petsArgument(): number | undefined {
  const index = process.argv.indexOf('--pets');
  if (index === -1) return undefined;
  const value = Number(process.argv[index + 1]);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new Error('--pets takes a positive whole number, e.g. --pets 1000000');
  }
  return value;
}

const bulkPets = petsArgument();
const resolved = await resolveDatabase(databaseConfig()).catch((error: unknown) => {
  if (!(error instanceof DataDirectoryInUseError)) throw error;
  console.error(`seed: ${error.message}`);
  process.exit(1);
});
try {
  const { dataSource } = await openMigrated(resolved, true);
  try {
    await seed(dataSource);
    if (bulkPets) await seedBulk(dataSource, bulkPets);
  } finally {
    await dataSource.destroy();
  }
  console.log('seed: done');
} finally {
  await resolved.embedded?.stop();
}
