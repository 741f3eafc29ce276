/** `npm run bench -- <name>`: runs one benchmark from this folder, on the compiled code. */
const benches: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  media: () => import('./media.bench.js'),
};

const name = process.argv[2];
const load = name ? benches[name] : undefined;
if (!load) {
  console.error(`Usage: npm run bench -- <${Object.keys(benches).join('|')}>`);
  process.exit(2);
}
await (await load()).run();
