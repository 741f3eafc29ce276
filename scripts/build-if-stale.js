import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

/**
 * `npm run build` only when a source is newer than what it built: `npm start`, `npm run seed`,
 * `npm run cli` and the tests' global setup start here, so that a restart with nothing
 * changed costs no build. The sources are the service's, the console's and the typed
 * client's folders, the build's own configuration and the installed packages; the outputs
 * are the service's entry point and the console's page.
 */
const SOURCES = [
  'src',
  'console',
  'client',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
  'package-lock.json',
];
const BUILT = ['dist/main.js', 'dist/console-app/index.html'];

// A folder's own time counts too: deleting or renaming a file in it changes only that.
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** What makes `root`'s build stale, or `undefined` when it is up to date. */
export function staleBuild(root = process.cwd()) {
  const missing = BUILT.find((file) => !existsSync(join(root, file)));
  if (missing) return `${missing} is missing`;
  const sources = Math.max(
    ...SOURCES.filter((path) => existsSync(join(root, path))).map((path) =>
      newest(join(root, path)),
    ),
  );
  const built = Math.min(...BUILT.map((file) => statSync(join(root, file)).mtimeMs));
  return sources > built ? 'a source changed since the last build' : undefined;
}

export function buildIfStale(root = process.cwd()) {
  const reason = staleBuild(root);
  if (!reason) return false;
  process.stdout.write(`Building: ${reason}\n`);
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
  return true;
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) buildIfStale();
