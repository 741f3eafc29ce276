import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The folder graph of a source root: which top-level folder imports which, read from every
// TypeScript file's relative imports (type-only ones included: they couple folders too).
// Read once per root and process: a lint run sees the tree as it stood when the run began.
const graphs = new Map();

// The service's code: its unit specs, and declaration files, are no part of the graph.
const isSource = (name) =>
  name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.spec.ts');

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return isSource(entry.name) ? [full] : [];
  });
}

/** The file a relative specifier names (`./x.js` is `./x.ts` before compilation). */
function resolveImport(fromFile, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(fromFile), specifier);
  return target.endsWith('.js') ? target.slice(0, -3) + '.ts' : target;
}

/** The top-level folder (or, for a file directly under the root, the file) holding a path. */
function unitOf(root, file) {
  const relative = path.relative(root, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep)[0];
}

function folderGraph(root) {
  let graph = graphs.get(root);
  if (graph) return graph;
  // unit -> (unit -> one importing file and the file it imports, to show in a refusal)
  graph = new Map();
  for (const file of sourceFiles(root)) {
    const from = unitOf(root, file);
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      const target = resolveImport(file, fileName);
      const to = target && unitOf(root, target);
      if (!to || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      if (!graph.get(from).has(to)) {
        graph.get(from).set(to, `${path.relative(root, file)} → ${path.relative(root, target)}`);
      }
    }
  }
  graphs.set(root, graph);
  return graph;
}

/** The folders from `start` to `goal` through the graph, or undefined when none leads there. */
function pathBetween(graph, start, goal) {
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const unit = queue.shift();
    if (unit === goal) {
      const hops = [];
      for (let at = goal; at !== undefined; at = cameFrom.get(at)) hops.unshift(at);
      return hops;
    }
    for (const next of graph.get(unit)?.keys() ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, unit);
      queue.push(next);
    }
  }
  return undefined;
}

/** Calls `check(node, specifier)` for every import, re-export and dynamic import of a file. */
function eachImport(check) {
  const visit = (node) => {
    if (node.source?.type === 'Literal' && typeof node.source.value === 'string') {
      check(node, node.source.value);
    }
  };
  return {
    ImportDeclaration: visit,
    ExportNamedDeclaration: visit,
    ExportAllDeclaration: visit,
    ImportExpression: visit,
  };
}

/** The importing file's folder and the imported file's, when the import crosses folders. */
function crossing(context, root, specifier) {
  const file = context.filename;
  const target = resolveImport(file, specifier);
  const from = unitOf(root, file);
  const to = target && unitOf(root, target);
  if (!from || !to || from === to) return undefined;
  return { file, target, from, to };
}

const rootOf = (context) => path.resolve(context.cwd, context.options[0]?.root ?? 'src');

const noFolderCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Refuses an import that closes a cycle between top-level folders' },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      cycle:
        '{{from}}/ → {{to}}/ closes a cycle of folders: {{cycle}}. A folder never imports one ' +
        'that leads back to it: move the code to the folder it belongs to, or invert the ' +
        'dependency (an event, a registration). docs/architecture.md, "Modules".',
    },
  },
  create(context) {
    const root = rootOf(context);
    return eachImport((node, specifier) => {
      const edge = crossing(context, root, specifier);
      if (!edge) return;
      const graph = folderGraph(root);
      const back = pathBetween(graph, edge.to, edge.from);
      if (!back) return;
      const hops = back
        .slice(1)
        .map((unit, i) => `${unit} (${graph.get(back[i]).get(unit)})`)
        .join(' → ');
      context.report({
        node,
        messageId: 'cycle',
        data: { from: edge.from, to: edge.to, cycle: `${edge.from} → ${edge.to} → ${hops}` },
      });
    });
  },
};

const publicSurface = {
  meta: {
    type: 'problem',
    docs: { description: "Refuses an import of another module's private file" },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          open: { type: 'array', items: { type: 'string' } },
          surface: { type: 'array', items: { type: 'string' } },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      private:
        '{{target}} is private to {{to}}/: another module imports only its public surface ' +
        '(its module, services, guards, middleware, decorators, events, DTOs and top-level ' +
        'types). Use one of those, or move the code to where it belongs. ' +
        'docs/architecture.md, "Public surface".',
    },
  },
  create(context) {
    const root = rootOf(context);
    const open = new Set(context.options[0]?.open ?? []);
    const surface = (context.options[0]?.surface ?? []).map((pattern) => new RegExp(pattern));
    const isEntity = (file) => file.endsWith('.entity.ts');
    return eachImport((node, specifier) => {
      const edge = crossing(context, root, specifier);
      const folder = edge && fs.statSync(path.join(root, edge.to), { throwIfNoEntry: false });
      // Files directly under the root (main.ts, app.module.ts) are no module.
      if (!folder?.isDirectory() || open.has(edge.to)) return;
      const inModule = path.relative(path.join(root, edge.to), edge.target).split(path.sep);
      if (surface.some((pattern) => pattern.test(inModule.join('/')))) return;
      // A relation names the other module's entity.
      if (isEntity(edge.file) && isEntity(edge.target)) return;
      context.report({
        node,
        messageId: 'private',
        data: { target: path.relative(root, edge.target), to: edge.to },
      });
    });
  },
};

export default {
  meta: { name: 'module-graph' },
  rules: { 'no-folder-cycle': noFolderCycle, 'public-surface': publicSurface },
};
