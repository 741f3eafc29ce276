import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

// Names this run for the workers, which inherit the environment (see test-database.ts).
// Some e2e tests run the built service (dist/main.js) as a child process, and the console
// tests load the built console: build both when missing or older than any source file.
const BUILT = ['dist/main.js', 'dist/console-app/index.html'];

export default function globalSetup() {
  process.env.PETSTORE_TEST_RUN = randomBytes(4).toString('hex');
  const newest = Math.max(...['src', 'console', 'client'].map(newestSource));
  if (BUILT.every((file) => existsSync(file) && statSync(file).mtimeMs >= newest)) return;
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
