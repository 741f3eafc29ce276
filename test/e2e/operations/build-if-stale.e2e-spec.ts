import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

const SCRIPT = resolve(import.meta.dirname, '../../../scripts/build-if-stale.js');

/**
 * `npm start`, `npm run seed` and `npm run cli` begin with scripts/build-if-stale.js, here on
 * a project of the test's own whose build only counts its runs, so that no real build runs.
 */
describe('The build before npm start and npm run seed (e2e)', () => {
  let root: string;
  const builds = async () => Number(await readFile(join(root, 'builds'), 'utf8').catch(() => '0'));
  const run = () =>
    execFileSync(process.execPath, [SCRIPT], { cwd: root, encoding: 'utf8', env: process.env });

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'petstore-build-'));
    const build =
      "const fs = require('node:fs');" +
      "fs.mkdirSync('dist/console-app', { recursive: true });" +
      "fs.writeFileSync('dist/main.js', '');" +
      "fs.writeFileSync('dist/console-app/index.html', '');" +
      "fs.writeFileSync('builds', String(Number(fs.existsSync('builds') ? fs.readFileSync('builds', 'utf8') : 0) + 1));";
    await writeFile(
      join(root, 'package.json'),
      JSON.stringify({ name: 'fixture', private: true, scripts: { build: `node -e "${build}"` } }),
    );
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'src/main.ts'), 'export {};\n');
    await writeFile(join(root, 'src/old.ts'), 'export {};\n');
    // Sources written a minute ago: the first build is then newer than all of them.
    const past = new Date(Date.now() - 60_000);
    for (const path of ['src/main.ts', 'src/old.ts', 'src']) {
      await utimes(join(root, path), past, past);
    }
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('should build when nothing is built, and not again while no source changed', async () => {
    expect(run()).toContain('Building: dist/main.js is missing');
    expect(await builds()).toBe(1);

    expect(run()).toBe('');
    expect(run()).toBe('');
    expect(await builds()).toBe(1);
  });

  it('should build again once a source is newer than the build', async () => {
    run();
    const later = new Date(Date.now() + 60_000);
    await utimes(join(root, 'src/main.ts'), later, later);

    expect(run()).toContain('Building: a source changed since the last build');
    expect(await builds()).toBe(2);
  });

  it('should build again once a source is deleted', async () => {
    run();
    await rm(join(root, 'src/old.ts'));

    expect(run()).toContain('Building: a source changed since the last build');
    expect(await builds()).toBe(2);
  });
});
