import { DataSource } from 'typeorm';
import { databaseConfig } from '../config/database.config.js';
import { loadEnv } from '../config/load-env.js';
import { DataDirectoryInUseError } from '../database/data-dir-lock.js';
import { openMigrated } from '../database/migrate.js';
import { resolveDatabase, withoutStatementTimeouts } from '../database/typeorm-options.js';
import { DemoSeedRefusedError, seedDemo } from './demo-seed.js';

const BULK_CATEGORIES = 20;
const BULK_BATCH = 100_000;
/** Name words (20 × 20, then the pet's number), so that sorting by name walks real text. */
const FIRST_NAMES =
  'Bella Max Luna Charlie Lucy Cooper Daisy Milo Bailey Sadie Rocky Molly Buddy Lola Tucker Stella Bear Zoe Duke Coco';
const SECOND_NAMES =
  'Brook Star Pepper Shadow Ginger Maple Willow Storm Biscuit Honey Oreo Smokey Rusty Sunny Misty Ziggy Nala Copper Jasper Olive';
/** 1 % of pets each; the other 80 % are `MixbreedK` (K = 20..99). */
const BREEDS =
  'Labrador Beagle Poodle Bulldog Boxer Dachshund Collie Husky Terrier Spaniel Siamese Persian Bengal Sphynx Ragdoll Budgerigar Cockatiel Canary Hamster Parrot';
/** A three-word description: one of each list. */
const DESCRIPTION_WORDS = [
  'Playful Gentle Calm Curious Loyal Shy Lively Quiet Clever Cheerful',
  'little young older fluffy sleek spotted striped tiny sturdy graceful',
  'companion friend explorer sleeper runner climber swimmer watcher singer cuddler',
];
/** `tagK` (K = 0..99, 1 % of pets each) on every pet, `friendly` on a third. */
const TAGS = 100;

/**
 * `--pets N`: N synthetic pets across 20 categories and the three statuses, in bulk SQL, with
 * names, breeds, a description and tags (`tagK` on each, `friendly` on a third) for the
 * search rows of the bench. Names, tags and ages come from different functions of the pet's
 * number, so that no filter is correlated with a sort (a tag's pets spread over the name
 * order, as they would in a real catalogue). The per-row triggers are switched off for the
 * load; the counters, documents and words are written once at the end, inside the same
 * transaction. These pets get no history (nor webhook deliveries): they are benchmark data,
 * and N events would double the load.
 */
async function seedBulk(dataSource: DataSource, pets: number): Promise<void> {
  const started = Date.now();
  const progress = (step: string) =>
    console.log(`seed: ${step} (${Math.round((Date.now() - started) / 1000)} s)`);
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
  const words = (list: string) => list.split(' ');
  await dataSource.transaction(async (manager) => {
    await manager.query('ALTER TABLE pets DISABLE TRIGGER USER');
    await manager.query('ALTER TABLE pet_tags DISABLE TRIGGER USER');
    const [{ first }] = await manager.query<{ first: string }[]>(
      'SELECT COALESCE(max(id), 0) + 1 AS first FROM pets',
    );
    await manager.query(
      `INSERT INTO tags (name)
       SELECT 'tag' || k FROM generate_series(0, $1 - 1) AS k UNION ALL SELECT 'friendly'
       ON CONFLICT (name) DO NOTHING`,
      [TAGS],
    );
    for (let done = 0; done < pets; done += BULK_BATCH) {
      const batch = Math.min(BULK_BATCH, pets - done);
      // Ids are taken first, in the numbers' order, for the tags (a hash of the id, as the demo
      // pets came first): the pets' rows hold them, as the pets' writes write `tag_list`
      // (TAG_LIST, pets/sql/pet-reads.sql.ts), and their links are written beside them.
      await manager.query(
        `WITH input AS MATERIALIZED (
           SELECT nextval(pg_get_serial_sequence('pets', 'id')) AS id, m
             FROM generate_series($1 + 1, $1 + $3) AS m ORDER BY m),
         links AS MATERIALIZED (
           SELECT i.id AS pet_id, t.id, t.name FROM input i
             JOIN tags t ON t.name = 'tag' || (i.id * 37 + i.id / 100) % $10
           UNION ALL
           SELECT i.id, t.id, t.name FROM input i JOIN tags t ON t.name = 'friendly'
            WHERE (i.id * 5 + i.id / 7) % 3 = 0),
         lists AS (
           SELECT pet_id,
                  ('[' || string_agg(concat('{"id":', id, ',"name":', to_json(name::text), '}'), ','
                                     ORDER BY name) || ']')::json AS tag_list
             FROM links GROUP BY pet_id),
         changed AS (
         INSERT INTO pets (id, name, category_id, status, age, breed, description, created_at,
                           updated_at, tag_list) OVERRIDING SYSTEM VALUE
         SELECT i.id, ($4::text[])[1 + m % 20] || ' ' || ($5::text[])[1 + (m / 20) % 20] || ' ' || m,
                ($2::bigint[])[1 + (m % array_length($2::bigint[], 1))],
                (ARRAY['available', 'pending', 'sold']::pet_status[])[1 + (m / 7) % 3],
                CASE WHEN m % 11 = 0 THEN NULL ELSE (m * 7 + m / 400) % 20 END,
                CASE WHEN (m * 13) % 100 < 20 THEN ($6::text[])[1 + (m * 13) % 100]
                     ELSE 'Mixbreed' || (m * 13) % 100 END,
                ($7::text[])[1 + (m * 3) % 10] || ' ' || ($8::text[])[1 + (m / 10) % 10] || ' '
                  || ($9::text[])[1 + (m / 100) % 10],
                now() - make_interval(secs => m), now() - make_interval(secs => m),
                COALESCE(l.tag_list, '[]')
           FROM input i LEFT JOIN lists l ON l.pet_id = i.id ORDER BY i.id
         RETURNING id, age)
         INSERT INTO pet_tags (pet_id, tag_id, pet_age)
         SELECT t.pet_id, t.id, c.age FROM links t JOIN changed c ON c.id = t.pet_id`,
        [
          done,
          categoryIds,
          batch,
          words(FIRST_NAMES),
          words(SECOND_NAMES),
          words(BREEDS),
          ...DESCRIPTION_WORDS.map(words),
          TAGS,
        ],
      );
      progress(`${done + batch} / ${pets} pets`);
    }
    progress('counts and search documents');
    await manager.query('ALTER TABLE pet_tags ENABLE TRIGGER USER');
    await manager.query('ALTER TABLE pets ENABLE TRIGGER USER');
    await manager.query('DELETE FROM pet_counts');
    await manager.query(
      `INSERT INTO pet_counts (category_id, status, count)
       SELECT category_id, status, count(*) FROM pets GROUP BY category_id, status`,
    );
    // What the search triggers would have written (pet_documents_refresh, migration
    // LightenSearchUpkeep), in one pass: a call per pet reads its tags one pet at a time
    // (minutes at 1M).
    await manager.query(
      `INSERT INTO pet_documents (pet_id, document, status, category_id, tag_ids)
       SELECT p.id, setweight(to_tsvector('pet_search', p.name), 'A')
                 || setweight(to_tsvector('pet_search', concat_ws(' ', p.breed, t.names)), 'B')
                 || setweight(to_tsvector('pet_search', concat_ws(' ', c.name, p.description)), 'C'),
              p.status, p.category_id, COALESCE(t.ids, '{}')
         FROM pets p
         JOIN categories c ON c.id = p.category_id
         LEFT JOIN (SELECT pt.pet_id, string_agg(t.name, ' ' ORDER BY t.id) AS names,
                           array_agg(t.id ORDER BY t.id) AS ids
                      FROM pet_tags pt JOIN tags t ON t.id = pt.tag_id
                     WHERE pt.pet_id >= $1 GROUP BY pt.pet_id) t ON t.pet_id = p.id
        WHERE p.id >= $1
       ON CONFLICT (pet_id) DO NOTHING`,
      [first],
    );
    // The words of names and breeds, each once (the pets' numbers have no letter to keep).
    await manager.query(
      `SELECT search_words_add(ARRAY(
         SELECT DISTINCT w FROM pets, regexp_split_to_table(concat_ws(' ', name, breed), '\\s+') AS w
          WHERE w ~ '[[:alpha:]]'))`,
    );
  });
  progress('VACUUM ANALYZE');
  // All-visible pages: searches count and rank from the indexes without visiting the heap.
  await dataSource.query('VACUUM ANALYZE');
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
loadEnv();
try {
  // Bulk pets are benchmark data: the demo's pets, accounts and webhooks stay out of them.
  if (bulkPets) await seedBulkPets(bulkPets);
  else await seedDemo((line) => console.log(line));
  console.log('seed: done');
} catch (error) {
  if (!(error instanceof DataDirectoryInUseError || error instanceof DemoSeedRefusedError)) {
    throw error;
  }
  console.error(`seed: ${error.message}`);
  process.exitCode = 1;
}

async function seedBulkPets(pets: number): Promise<void> {
  const resolved = await resolveDatabase(databaseConfig());
  try {
    const { dataSource } = await openMigrated(resolved, true);
    try {
      if (resolved.embedded) {
        // The embedded database serves one connection, the data source's, and has no
        // statement timeouts to lift: a second data source would be refused.
        await seedBulk(dataSource, pets);
      } else {
        // Bulk statements outlast the service's per-statement cap (more so on a loaded machine).
        const bulk = new DataSource(withoutStatementTimeouts(dataSource.options));
        await bulk.initialize();
        try {
          await seedBulk(bulk, pets);
        } finally {
          await bulk.destroy();
        }
      }
    } finally {
      await dataSource.destroy();
    }
  } finally {
    await resolved.embedded?.stop();
  }
}
