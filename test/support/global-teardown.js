import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Removes the migrated PGlite templates that test/support/test-database.ts made per worker.
export default async function globalTeardown() {
  const entries = await readdir(tmpdir());
  await Promise.all(
    entries
      .filter((name) => name.startsWith('petstore-template-'))
      .map((name) => rm(join(tmpdir(), name), { recursive: true, force: true })),
  );
}
