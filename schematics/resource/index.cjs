// `nest g resource NAME`: a REST resource shaped like src/categories/ (PUT, ParseIdPipe,
// validated and documented DTOs, ApiErrors, a mapper, an entity its module registers, the
// repository that alone touches TypeORM), with its migration, a unit spec of its service and
// an e2e spec. The new files are the templates under files/ (the module's folder), migration/
// and e2e/ (the module's own folder under test/e2e/); the only existing files it edits are
// app.module.ts (the module) and openapi/openapi-builder.ts (the tag); then, as a task run
// once they are written, it regenerates openapi/openapi.json and client/schema.d.ts
// (../regenerate-openapi). Files are formatted with the project's Prettier settings, so
// `npm run check` passes as is.
'use strict';

const { strings } = require('@angular-devkit/core');
const {
  SchematicsException,
  apply,
  applyTemplates,
  chain,
  filter,
  forEach,
  mergeWith,
  move,
  url,
} = require('@angular-devkit/schematics');
const { RunSchematicTask } = require('@angular-devkit/schematics/tasks');
const pluralize = require('pluralize');

/** What the templates and their paths use; `name` is the plural, as in the route. */
function templateOptions(name, timestamp) {
  const plural = strings.dasherize(pluralize.plural(name));
  const singular = pluralize.singular(plural);
  const Plural = strings.classify(plural);
  return {
    ...strings,
    singular: (text) => pluralize.singular(text),
    name: plural, // owners: folder, route, file names
    Plural, // Owners
    Singular: strings.classify(singular), // Owner
    many: strings.camelize(plural), // owners, for variables
    one: strings.camelize(singular), // owner
    table: strings.underscore(plural), // owners
    words: plural.replace(/-/g, ' '), // owners, for texts
    word: singular.replace(/-/g, ' '), // owner
    event: strings.underscore(singular), // owner, for event types and subjects
    a: /^[aeiou]/.test(singular) ? 'an' : 'a',
    timestamp,
    migrationClass: `Create${Plural}${timestamp}`,
  };
}

/**
 * Adds an import after the last one, and an entry to the array that `anchor` ends by
 * opening: before `last` (and the comment lines above it) when the array holds it, else at
 * the end.
 */
function register(tree, path, importLine, anchor, entry, last) {
  const source = tree.read(path)?.toString('utf8');
  if (source === undefined) throw new SchematicsException(`${path} not found`);
  const lastImport = source.lastIndexOf('\nimport ');
  const importEnd = source.indexOf(';\n', lastImport) + 2;
  const text = source.slice(0, importEnd) + importLine + '\n' + source.slice(importEnd);
  if (!text.includes(anchor)) throw new SchematicsException(`${path}: "${anchor}" not found`);
  const open = text.indexOf(anchor) + anchor.length - 1;
  // The array's own closing bracket, past any nested ones.
  let depth = 0;
  let close = open;
  for (; close < text.length; close += 1) {
    if (text[close] === '[') depth += 1;
    if (text[close] === ']' && --depth === 0) break;
  }
  const lastAt =
    last === undefined ? -1 : text.slice(open, close).search(new RegExp(`\\b${last}\\b`));
  if (lastAt >= 0) {
    let lineStart = text.lastIndexOf('\n', open + lastAt) + 1;
    const lineAbove = () => text.slice(text.lastIndexOf('\n', lineStart - 2) + 1, lineStart);
    while (lineAbove().trim().startsWith('//')) lineStart -= lineAbove().length;
    tree.overwrite(path, `${text.slice(0, lineStart)}${entry},\n${text.slice(lineStart)}`);
    return;
  }
  const before = text.slice(0, close).replace(/,?\s*$/, '');
  tree.overwrite(path, `${before}, ${entry}${text.slice(close)}`);
}

/** Spectral wants every operation's tag declared: one more `.addTag` after the last. */
function addTag(tree, path, names) {
  const source = tree.read(path)?.toString('utf8');
  const last = source?.lastIndexOf('.addTag(') ?? -1;
  if (last < 0) throw new SchematicsException(`${path}: no .addTag( to follow`);
  const end = source.indexOf('\n', last);
  const tag = `\n    .addTag('${names.name}', '${strings.capitalize(names.words)}')`;
  tree.overwrite(path, source.slice(0, end) + tag + source.slice(end));
}

async function format(path, text) {
  const prettier = await import('prettier');
  const config = await prettier.resolveConfig(path);
  return prettier.format(text, { ...config, filepath: path });
}

/** The templates under `folder`, rendered into `target`; their paths are added to `written`. */
function render(folder, options, target, written, withSpecs) {
  return mergeWith(
    apply(url(folder), [
      filter((path) => withSpecs || !/\.spec\.ts\.template$/.test(path)),
      applyTemplates(options),
      move(target),
      forEach((entry) => {
        written.push(entry.path.replace(/^\//, ''));
        return entry;
      }),
    ]),
  );
}

function main(options) {
  const root = options.sourceRoot ?? 'src';
  const names = templateOptions(options.name, Date.now());
  const edited = [`${root}/app.module.ts`, `${root}/openapi/openapi-builder.ts`];
  const written = [];
  const withSpecs = options.spec !== false;
  return chain([
    (tree) => {
      if (tree.exists(`${root}/${names.name}/${names.name}.module.ts`)) {
        throw new SchematicsException(`${root}/${names.name} already exists`);
      }
      register(
        tree,
        edited[0],
        `import { ${names.Plural}Module } from './${names.name}/${names.name}.module.js';`,
        'imports: [',
        `${names.Plural}Module`,
        // Its catch-all route must stay registered after every real one.
        'UnknownRouteModule',
      );
      addTag(tree, edited[1], names);
    },
    render('./files', names, root, written, withSpecs),
    render('./migration', names, `${root}/database/migrations`, written, withSpecs),
    ...(withSpecs ? [render('./e2e', names, 'test/e2e', written, withSpecs)] : []),
    async (tree) => {
      for (const path of [...edited, ...written]) {
        tree.overwrite(path, await format(path, tree.read(path).toString('utf8')));
      }
    },
    // Last, once the files above are written: the committed document and client follow.
    (_, context) => {
      context.addTask(new RunSchematicTask('regenerate-openapi', {}));
    },
  ]);
}

module.exports = { main };
