import { afterEach, describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import tseslint from 'typescript-eslint';

const REPOSITORY = resolve(import.meta.dirname, '../..');
const RULES = ['module-graph/no-folder-cycle', 'module-graph/public-surface'];

/** The module-graph rules exactly as `npm run lint` applies them to a file of src/. */
async function projectRules(): Promise<Linter.Config> {
  const config = (await new ESLint({ cwd: REPOSITORY }).calculateConfigForFile(
    join(REPOSITORY, 'src/app.module.ts'),
  )) as Linter.Config;
  return {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { 'module-graph': config.plugins!['module-graph'] },
    rules: Object.fromEntries(RULES.map((rule) => [rule, config.rules![rule]])),
  };
}

let fixture: string | undefined;

/** Lints a source tree made of `files` (path under src/ → code) with the project's rules. */
async function lint(files: Record<string, string>): Promise<string[]> {
  fixture = await mkdtemp(join(tmpdir(), 'module-graph-'));
  for (const [path, code] of Object.entries(files)) {
    const file = join(fixture, 'src', path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, code);
  }
  const eslint = new ESLint({
    cwd: fixture,
    overrideConfigFile: true,
    overrideConfig: [await projectRules()],
  });
  const results = await eslint.lintFiles(['src']);
  return results.flatMap((result) =>
    result.messages.map(
      (message) => `${result.filePath.slice(fixture!.length + 1)}: ${message.message}`,
    ),
  );
}

afterEach(async () => {
  if (fixture) await rm(fixture, { recursive: true, force: true });
  fixture = undefined;
});

describe('the module graph lint', () => {
  it('should refuse each import that closes a cycle between top-level folders', async () => {
    const problems = await lint({
      'shop/shop.service.ts':
        "import { Stock } from '../stock/stock.service.js';\nexport const shop = Stock;\n",
      'stock/stock.service.ts':
        "import { Report } from '../reports/report.service.js';\nexport const Stock = Report;\n",
      'reports/report.service.ts':
        "import { shop } from '../shop/shop.service.js';\nexport const Report = shop;\n",
    });

    expect(problems).toHaveLength(3);
    expect(problems).toContainEqual(
      expect.stringContaining(
        'src/reports/report.service.ts: reports/ → shop/ closes a cycle of folders: reports → ' +
          'shop → stock (shop/shop.service.ts → stock/stock.service.ts) → reports ' +
          '(stock/stock.service.ts → reports/report.service.ts)',
      ),
    );
  });

  it("should refuse another module's private file and let its public surface through", async () => {
    const problems = await lint({
      'pets/pet.repository.ts': 'export class PetRepository {}\n',
      'pets/sql/pet-reads.sql.ts': "export const READ = 'SELECT 1';\n",
      'pets/pets.service.ts': 'export class PetsService {}\n',
      'pets/pet-status.ts': "export type PetStatus = 'sold';\n",
      'pets/dto/pet-response.dto.ts': 'export class PetResponse {}\n',
      'media/media.service.ts': [
        "import { PetsService } from '../pets/pets.service.js';",
        "import type { PetStatus } from '../pets/pet-status.js';",
        "import { PetResponse } from '../pets/dto/pet-response.dto.js';",
        "import { PetRepository } from '../pets/pet.repository.js';",
        "import { READ } from '../pets/sql/pet-reads.sql.js';",
        'export const uses = [PetsService, PetResponse, PetRepository, READ];',
        "export const status: PetStatus = 'sold';",
        '',
      ].join('\n'),
    });

    expect(problems).toEqual([
      expect.stringMatching(
        /^src\/media\/media\.service\.ts: pets\/pet\.repository\.ts is private to pets\//,
      ),
      expect.stringMatching(
        /^src\/media\/media\.service\.ts: pets\/sql\/pet-reads\.sql\.ts is private to pets\//,
      ),
    ]);
  });
});
