/**
 * `npm run bench [-- api|guards|login|media|media-memory|memory] [--quick]`: runs one
 * benchmark from this folder, on the compiled code; the API benchmark when none is named. The
 * API benchmark also takes `--variant=KEY=VALUE` (see api.bench.ts).
 */
const benches: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  api: () => import('./api.bench.js'),
  guards: () => import('./guards.bench.js'),
  login: () => import('./login.bench.js'),
  media: () => import('./media.bench.js'),
  'media-memory': () => import('./media-memory.bench.js'),
  memory: () => import('./memory.bench.js'),
};

const name = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'api';
const load = benches[name];
if (!load) {
  console.error(`Usage: npm run bench -- [${Object.keys(benches).join('|')}] [--quick]`);
  process.exit(2);
}
await (await load()).run();
