import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PET_STATEMENT_SAMPLES, type StatementSample } from '../pets/pet-statement-samples.js';
import { sqlFile } from './sql-files.js';

/**
 * Writes every statement shape the SQL builders make, from their fixed samples, as SQL
 * files (`npm run sql:generate`; `npm run sql:check` fails when they differ from what is
 * committed): a query change reviews as a diff of SQL. The folder is written anew, so a
 * shape that is gone goes from it too.
 */
const SAMPLES: Record<string, Record<string, StatementSample[]>> = {
  pets: PET_STATEMENT_SAMPLES,
};

async function generate(target: string): Promise<void> {
  await rm(target, { recursive: true, force: true });
  for (const [module, files] of Object.entries(SAMPLES)) {
    await mkdir(join(target, module), { recursive: true });
    for (const [file, samples] of Object.entries(files)) {
      const source = `src/${module}/sql/${file}.sql.ts`;
      await writeFile(join(target, module, `${file}.sql`), sqlFile(source, samples));
    }
  }
}

await generate(resolve(process.argv[2] ?? 'sql'));
