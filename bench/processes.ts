import { spawn } from 'node:child_process';

/** What the benchmarks share about the processes they start: readiness, seeding. */

// Four servers starting at once on a loaded 2-core machine have taken more than a minute.
const START_TIMEOUT_MS = 300_000;

export async function waitForHttp(url: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * `pets` synthetic pets (the seed script's `--pets`) into the database `env` names:
 * `DATABASE_URL`, or without it the embedded one in `DATA_DIR`. With none, only the demo
 * data, which migrates a new database.
 */
export async function seedPets(env: Record<string, string>, pets: number): Promise<void> {
  const bulk = pets > 0 ? ['--pets', String(pets)] : [];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['dist-bench/src/cli/seed.js', ...bulk], {
      env: { ...process.env, ...env },
      stdio: 'inherit',
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seed exited ${code}`))));
  });
}
