import pg from 'pg';

/**
 * What search adds to every create (migrations AddPetSearch and KeepSearchFacts): the
 * triggers writing documents and words, and the indexes on `pets` that only the searches
 * and sorts use. `withoutSearchUpkeep` takes them away for the length of one measurement
 * (triggers disabled, indexes dropped and built again from their own definitions), so that
 * the bench measures a create with and without them in alternating rounds.
 */
const TRIGGERS: [table: string, trigger: string][] = [
  ['pets', 'pets_search_insert'],
  ['pets', 'pets_search_update'],
  ['pets', 'pets_age_to_tags'],
  ['pet_tags', 'pet_tags_search_insert'],
  ['pet_tags', 'pet_tags_search_delete'],
];
const INDEXES = [
  'IDX_pets_name_lower',
  'IDX_pets_age',
  'IDX_pets_age_desc',
  'IDX_pets_breed_lower',
];

export async function withoutSearchUpkeep<T>(databaseUrl: string, run: () => Promise<T>) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ indexdef: string }>(
      'SELECT indexdef FROM pg_indexes WHERE indexname = ANY($1::text[])',
      [INDEXES],
    );
    if (rows.length !== INDEXES.length) throw new Error('search indexes missing: migrate first');
    const toggle = (action: 'DISABLE' | 'ENABLE') =>
      client.query(
        TRIGGERS.map(([table, name]) => `ALTER TABLE ${table} ${action} TRIGGER ${name}`).join(';'),
      );
    await toggle('DISABLE');
    await client.query(INDEXES.map((name) => `DROP INDEX "${name}"`).join(';'));
    try {
      return await run();
    } finally {
      for (const { indexdef } of rows) await client.query(indexdef);
      await toggle('ENABLE');
      // The documents the disabled triggers did not write, so that searches find those pets.
      await client.query(`SELECT pet_documents_refresh(ARRAY(
        SELECT id FROM pets p WHERE NOT EXISTS (SELECT 1 FROM pet_documents d WHERE d.pet_id = p.id)))`);
      // The rebuild's aftermath settled now, not during the next round, whose creates would
      // pay for this bench's own work: those documents' entries merged into the GIN index
      // (they would fill its pending list). Its pages are written out by the next round's
      // checkpoint (`afterCheckpoint`).
      await client.query(`SELECT gin_clean_pending_list('"IDX_pet_documents_document"'::regclass)`);
    }
  } finally {
    await client.end();
  }
}

/**
 * `run` from a fresh checkpoint. Every round of both variants starts from one, so that each
 * pays alike for the full-page images of the pages it touches first (the search indexes'
 * random pages among them), and none writes out pages dirtied before it (a rebuild's).
 */
export async function afterCheckpoint<T>(databaseUrl: string, run: () => Promise<T>) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
  return run();
}
