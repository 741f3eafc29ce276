import { describe, expect, it } from '@jest/globals';
import { MAX_PAGE_SIZE } from '../../common/contract-limits.js';
import { listPetsQuery, type PetListFilters } from './pet-search.sql.js';

/** The plain list's shapes, which run as named statements. */
const NAMED: PetListFilters[] = [
  { limit: 20, offset: 0 },
  { limit: 20, offset: 0, category: 'Dogs', status: 'available', sort: 'createdAt' },
  { limit: 20, offset: 0, sort: 'name', after: { key: 'rex', id: 42 } },
  { limit: 20, offset: 0, sort: '-age', after: { key: 3, id: 42 } },
  { limit: 20, offset: 0, sort: 'age', after: { key: null, id: 42 } },
];

describe('listPetsQuery', () => {
  it.each(NAMED)(
    'should cut a named first or cursor page at the largest page size, a constant, then at the size asked (%j)',
    (filters) => {
      const { sql, params, prepare } = listPetsQuery(filters);
      expect(prepare).toBe(true);
      // A generic plan estimates a LIMIT or OFFSET parameter as a tenth of the rows; the
      // constant tells it the page is small, so that it walks the sort's index.
      expect(sql).toContain(`LIMIT ${MAX_PAGE_SIZE}`);
      expect(sql).not.toContain('OFFSET');
      expect(sql).toMatch(new RegExp(`LIMIT \\$${params.indexOf(filters.limit) + 1}\\b`));
      expect(listPetsQuery({ ...filters, limit: 50 }).sql).toBe(sql);
    },
  );

  it('should keep an offset page’s LIMIT and OFFSET as parameters, one text for every offset', () => {
    const { sql, params } = listPetsQuery({ limit: 20, offset: 10_000 });
    expect(sql).toMatch(/LIMIT \$\d+ OFFSET \$\d+/);
    expect(sql).not.toContain(`LIMIT ${MAX_PAGE_SIZE}`);
    expect(params).toEqual(expect.arrayContaining([20, 10_000]));
    expect(listPetsQuery({ limit: 20, offset: 20 }).sql).toBe(sql);
  });

  it('should leave a search’s page as it was: parameters only, planned for its values', () => {
    const { sql, prepare } = listPetsQuery({ limit: 20, offset: 0, q: 'labrador' });
    expect(prepare).toBe(false);
    expect(sql).not.toContain(`LIMIT ${MAX_PAGE_SIZE}`);
  });
});
