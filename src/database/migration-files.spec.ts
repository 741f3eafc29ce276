import { readdirSync } from 'node:fs';
import { loadMigrations } from './migration-files.js';

describe('loadMigrations', () => {
  it('finds one class per file in migrations/, oldest first, without a list of them', async () => {
    const files = readdirSync(new URL('./migrations/', import.meta.url)).filter((name) =>
      /^\d+-\w+\.ts$/.test(name),
    );

    const migrations = await loadMigrations();

    expect(migrations.map((migration) => migration.name)).toEqual(
      files.sort().map((name) => {
        const [timestamp, className] = name.replace(/\.ts$/, '').split('-');
        return `${className}${timestamp}`;
      }),
    );
    for (const Migration of migrations) expect(typeof new Migration().up).toBe('function');
  });
});
