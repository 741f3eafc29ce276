import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { scopeTable, withScopeTable, type ScopedDocument } from '../openapi/scope-table.js';

/**
 * Rewrites docs/api.md's "API key scopes" table from the OpenAPI document's
 * `x-required-scopes`, so that the table says what the routes declare (run by
 * `npm run openapi:generate`, checked by `npm run openapi:check` and scope-table.spec.ts).
 */
async function generate(documentPath: string, markdownPath: string): Promise<void> {
  const document = JSON.parse(await readFile(documentPath, 'utf8')) as ScopedDocument;
  const markdown = await readFile(markdownPath, 'utf8');
  const updated = withScopeTable(markdown, scopeTable(document));
  if (updated !== markdown) await writeFile(markdownPath, updated);
}

await generate(
  resolve(process.argv[2] ?? 'openapi/openapi.json'),
  resolve(process.argv[3] ?? 'docs/api.md'),
);
