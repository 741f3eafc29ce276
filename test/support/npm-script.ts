import { readFile } from 'node:fs/promises';

/**
 * How the npm script `name` runs the service: the variables it sets before `node` and the
 * flags it gives node. The script must read `[VAR=value …] node [--flag …] dist/main.js`.
 */
export async function npmScript(
  name: string,
): Promise<{ env: Record<string, string>; flags: string[] }> {
  // From the working directory: npm and Jest run in the package's root, and the benchmarks
  // run a compiled copy of this file from another folder.
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = scripts[name].trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node === -1 || words.at(-1) !== 'dist/main.js') {
    throw new Error(
      `the ${name} script no longer reads "[VAR=value …] node [--flag …] dist/main.js"`,
    );
  }
  const env = Object.fromEntries(
    words.slice(0, node).map((word) => {
      const equals = word.indexOf('=');
      return [word.slice(0, equals), word.slice(equals + 1)];
    }),
  );
  return { env, flags: words.slice(node + 1, -1) };
}
