import { describe, expect, it } from '@jest/globals';
import { MAX_IMPORT_ROWS } from '../common/contract-limits.js';
import { readImportFile } from './import-rows.js';

describe(readImportFile.name, () => {
  it('should read CSV with a BOM and RFC 4180 quoting, empty cells left out and lists split', async () => {
    const csv =
      '\uFEFFid,name,category,tags,photoUrls,age,description\r\n' +
      '7,Rex,Dogs,a|b,https://x.example/1.jpg|https://x.example/2.jpg,3,"Says ""hi"", then\nsleeps"\r\n' +
      ',Tom,Cats,,,old,\r\n';

    expect(await readImportFile(Buffer.from(csv), 'csv')).toEqual({
      records: [
        {
          row: 1,
          fields: {
            name: 'Rex',
            category: 'Dogs',
            tags: ['a', 'b'],
            photoUrls: ['https://x.example/1.jpg', 'https://x.example/2.jpg'],
            age: 3,
            description: 'Says "hi", then\nsleeps',
          },
        },
        { row: 2, fields: { name: 'Tom', category: 'Cats', age: 'old' } },
      ],
    });
  });

  it('should fail a CSV file it cannot parse, naming the record it stopped at', async () => {
    const read = await readImportFile(Buffer.from('name\nRex\n"Tom\n'), 'csv');
    expect(read).toEqual({ error: { row: 2, field: 'file', message: expect.any(String) } });
  });

  it('should read NDJSON in the export’s shapes, blank lines skipped, a line that is no object kept as such', async () => {
    const lines = [
      JSON.stringify({
        id: 4,
        name: 'Rex',
        category: { id: 1, name: 'Dogs' },
        tags: [{ name: 'a' }],
      }),
      '',
      '[1]',
      '{"name":',
    ].join('\n');

    expect(await readImportFile(Buffer.from(lines), 'ndjson')).toEqual({
      records: [
        { row: 1, fields: { name: 'Rex', category: 'Dogs', tags: ['a'] } },
        { row: 2, fields: undefined },
        { row: 3, fields: undefined },
      ],
    });
  });

  it('should keep a __proto__ key as a field of its own, for the checks to refuse', async () => {
    const read = await readImportFile(Buffer.from('{"__proto__":{"x":1},"name":"Rex"}'), 'ndjson');
    if (!('records' in read)) throw new Error('not read');
    const [{ fields }] = read.records;
    expect(Object.keys(fields!)).toEqual(['__proto__', 'name']);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });

  it('should let the event loop turn while it parses a large CSV file', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `Pet ${i},Dogs,available`);
    const csv = Buffer.from(['name,category,status', ...rows].join('\n'));
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);

    const read = await readImportFile(csv, 'csv');
    counting = false;

    if (!('records' in read)) throw new Error('not read');
    expect(read.records).toHaveLength(20_000);
    // A turn per 16 kB: the file is some 500 kB.
    expect(turns).toBeGreaterThanOrEqual(5);
  });

  it('should refuse a CSV file of more rows than an import holds, naming the first row past it', async () => {
    const rows = Array.from({ length: MAX_IMPORT_ROWS + 1 }, () => 'Rex');

    const read = await readImportFile(Buffer.from(['name', ...rows].join('\n')), 'csv');

    expect(read).toEqual({
      error: { row: MAX_IMPORT_ROWS + 1, field: 'file', message: expect.any(String) },
    });
  });
});
