import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { REQUIRED_SCOPES_EXTENSION } from '../common/decorators/required-scope.decorator.js';
import { scopeTable, withScopeTable, type ScopedDocument } from './scope-table.js';

const keyOrBearer = [{ bearer: [] }, { apiKey: [] }];

describe('API key scope table', () => {
  it('should list each operation that takes a key under its scope, in the contract order', () => {
    const table = scopeTable({
      paths: {
        '/v1/pets': {
          get: { security: keyOrBearer, [REQUIRED_SCOPES_EXTENSION]: ['pets:read'] },
          post: { security: keyOrBearer, [REQUIRED_SCOPES_EXTENSION]: ['pets:write'] },
        },
        '/v1/rate-limit': { get: { security: keyOrBearer, [REQUIRED_SCOPES_EXTENSION]: [] } },
        '/v1/api-keys': { get: { security: [{ bearer: [] }] } },
        '/v1/categories': {
          get: { security: keyOrBearer, [REQUIRED_SCOPES_EXTENSION]: ['categories:read'] },
        },
      },
    });
    const rows = table.split('\n').map((row) => row.replace(/ +/g, ' '));
    expect(rows[0]).toBe('| scope | operation |');
    expect(rows).toContain('| `pets:read` | `GET /v1/pets` |');
    expect(rows.indexOf('| `pets:write` | `POST /v1/pets` |')).toBeLessThan(
      rows.indexOf('| `categories:read` | `GET /v1/categories` |'),
    );
    expect(rows).toContain('| `webhooks:read` | none yet |');
    expect(rows.at(-1)).toBe('| any scope | `GET /v1/rate-limit` |');
    expect(table).not.toContain('/v1/api-keys');
  });

  // The check that keeps the documentation honest: regenerate with npm run openapi:generate.
  it('should be what docs/api.md shows, generated from openapi/openapi.json', () => {
    const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8')) as ScopedDocument;
    const markdown = readFileSync('docs/api.md', 'utf8');
    expect(withScopeTable(markdown, scopeTable(document))).toBe(markdown);
  });
});
