import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

// Names this run for the workers, which inherit the environment (see test-database.ts).
// Some e2e tests run the built service (dist/main.js) as a child process: build it when
// it is missing or older than any source file.
export default function globalSetup() {
  process.env.PETSTORE_TEST_RUN = randomBytes(4).toString('hex');
  const main = 'dist/main.js';
  if (existsSync(main) && statSync(main).mtimeMs >= newestSource('src')) return;
  execSync('npm run build', { stdio: 'inherit' });
}

function newestSource(dir) {
  return Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    }),
  );
}
