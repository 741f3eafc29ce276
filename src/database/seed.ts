import { DataSource } from 'typeorm';
import { databaseConfig } from '../config/database.config.js';
import { openMigrated } from './migrate.js';
import { resolveDatabase } from './typeorm-options.js';

// Demo data for people trying the service. Idempotent: categories are matched by name
// and a category's demo pets are only added when it has none.
const DEMO: Record<string, { description: string; pets: [string, string, string][] }> = {
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

async function seed(dataSource: DataSource): Promise<void> {
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
      for (const [petName, breed, status] of pets) {
        await manager.query(
          'INSERT INTO pets (name, category_id, status, breed) VALUES ($1, $2, $3, $4)',
          [petName, id, status, breed],
        );
      }
      console.log(`seed: ${name}: ${pets.length} pets`);
    });
  }
}

const resolved = await resolveDatabase(databaseConfig());
try {
  const { dataSource } = await openMigrated(resolved, true);
  try {
    await seed(dataSource);
  } finally {
    await dataSource.destroy();
  }
  console.log('seed: done');
} finally {
  await resolved.embedded?.stop();
}
