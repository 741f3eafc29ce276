import { describe, expect, it } from '@jest/globals';
import { exportChunks } from './pet-export.js';

async function* batches(...list: string[][]): AsyncGenerator<string[]> {
  for (const batch of list) yield await Promise.resolve(batch);
}

const chunksOf = async (source: AsyncIterable<string>) => {
  const chunks: string[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks;
};

const HEADER = 'id,name,category,status,tags,photoUrls,age,breed,description,externalId\n';

// The lines themselves are the database's (sql/pet-export.sql.ts), held to the list's JSON by
// the export's e2e tests.
describe('exportChunks', () => {
  it('should send the CSV header with the first batch, so nothing goes before a read succeeds', async () => {
    const chunks = await chunksOf(
      exportChunks(
        batches(['2,Pet 2,Dogs,available,,,,,,\n'], ['1,Pet 1,Dogs,available,,,,,,\n']),
        'csv',
      ),
    );
    expect(chunks).toEqual([
      `${HEADER}2,Pet 2,Dogs,available,,,,,,\n`,
      '1,Pet 1,Dogs,available,,,,,,\n',
    ]);
  });

  it('should answer no pet with the CSV header alone, and NDJSON with nothing', async () => {
    expect(await chunksOf(exportChunks(batches(), 'csv'))).toEqual([HEADER]);
    expect(await chunksOf(exportChunks(batches(), 'ndjson'))).toEqual([]);
  });

  it('should pass the NDJSON lines on as they are', async () => {
    expect(await chunksOf(exportChunks(batches(['{"id":2}\n'], ['{"id":1}\n']), 'ndjson'))).toEqual(
      ['{"id":2}\n', '{"id":1}\n'],
    );
  });
});
