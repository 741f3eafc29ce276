// Builds the web console into dist/console-app: one script and one style sheet named after
// their content, an icon likewise, and the page that loads them (served by src/console-host/).
// `node console/build.js --watch` rebuilds on every change.
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import process from 'node:process';

const sourceDir = import.meta.dirname;
const outDir = join(sourceDir, '../dist/console-app');
const assetsDir = join(outDir, 'assets');
const watch = process.argv.includes('--watch');

/** Writes the icon under a content-hashed name and returns that name. */
function writeIcon() {
  const icon = readFileSync(join(sourceDir, 'icon.svg'));
  const name = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8)}.svg`;
  writeFileSync(join(assetsDir, name), icon);
  return name;
}

/** After each build, points the page at the files that build wrote. */
const writePage = {
  name: 'write-page',
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
      const names = {
        script: outputs.find((name) => name.endsWith('.js')),
        styles: outputs.find((name) => name.endsWith('.css')),
        icon: writeIcon(),
      };
      const template = readFileSync(join(sourceDir, 'index.html'), 'utf8');
      const page = template.replace(/\{\{(\w+)\}\}/g, (_, key) => `/console/assets/${names[key]}`);
      writeFileSync(join(outDir, 'index.html'), page);
      if (watch) process.stdout.write(`console rebuilt: ${names.script}, ${names.styles}\n`);
    });
  },
};

rmSync(outDir, { recursive: true, force: true });
mkdirSync(assetsDir, { recursive: true });

const options = {
  entryPoints: [join(sourceDir, 'src/main.tsx'), join(sourceDir, 'src/styles.css')],
  outdir: assetsDir,
  entryNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: !watch,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  logLevel: 'warning',
  plugins: [writePage],
};

if (watch) {
  await (await esbuild.context(options)).watch();
} else {
  await esbuild.build(options);
}
