import { describe, expect, it } from '@jest/globals';
import { readImportFile } from './import-rows.js';

describe(readImportFile.name, () => {
  it('should read CSV with a BOM and RFC 4180 quoting, empty cells left out and lists split', () => {
    const csv =
      '\uFEFFid,name,category,tags,photoUrls,age,description\r\n' +
      '7,Rex,Dogs,a|b,https://x.example/1.jpg|https://x.example/2.jpg,3,"Says ""hi"", then\nsleeps"\r\n' +
      ',Tom,Cats,,,old,\r\n';

    expect(readImportFile(Buffer.from(csv), 'csv')).toEqual({
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

  it('should fail a CSV file it cannot parse, naming the record it stopped at', () => {
    const read = readImportFile(Buffer.from('name\nRex\n"Tom\n'), 'csv');
    expect(read).toEqual({ error: { row: 2, field: 'file', message: expect.any(String) } });
  });

  it('should read NDJSON in the export’s shapes, blank lines skipped, a line that is no object kept as such', () => {
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

    expect(readImportFile(Buffer.from(lines), 'ndjson')).toEqual({
      records: [
        { row: 1, fields: { name: 'Rex', category: 'Dogs', tags: ['a'] } },
        { row: 2, fields: undefined },
        { row: 3, fields: undefined },
      ],
    });
  });

  it('should keep a __proto__ key as a field of its own, for the checks to refuse', () => {
    const read = readImportFile(Buffer.from('{"__proto__":{"x":1},"name":"Rex"}'), 'ndjson');
    if (!('records' in read)) throw new Error('not read');
    const [{ fields }] = read.records;
    expect(Object.keys(fields!)).toEqual(['__proto__', 'name']);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
  });
});
