import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

// Removes the migrated PGlite template that global-setup.js made for this run (other runs
// on the machine may still be using theirs).
export default async function globalTeardown() {
  const prefix = `petstore-pglite-template-${process.env.PETSTORE_TEST_RUN}-`;
  const entries = await readdir(tmpdir());
  await Promise.all(
    entries
      .filter((name) => name.startsWith(prefix))
      .map((name) => rm(join(tmpdir(), name), { recursive: true, force: true, maxRetries: 3 })),
  );
}
