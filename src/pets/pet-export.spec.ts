import { describe, expect, it } from '@jest/globals';
import { exportChunks } from './pet-export.js';
import type { PetRow } from './sql/pet-reads.sql.js';

const pet = (id: number, fields: Partial<PetRow> = {}): PetRow => ({
  id,
  name: `Pet ${id}`,
  status: 'available',
  photoUrls: [],
  age: null,
  breed: null,
  description: null,
  createdAt: new Date('2026-12-01T10:00:00.000Z'),
  updatedAt: new Date('2026-12-01T10:00:00.000Z'),
  categoryId: 1,
  categoryName: 'Dogs',
  categoryDescription: null,
  tags: [],
  versionTag: '1.1',
  ...fields,
});

async function* batches(...list: PetRow[][]): AsyncGenerator<PetRow[]> {
  for (const batch of list) yield await Promise.resolve(batch);
}

const chunksOf = async (source: AsyncIterable<string>) => {
  const chunks: string[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks;
};

const HEADER = 'id,name,category,status,tags,photoUrls,age,breed,description,externalId\n';

describe('exportChunks', () => {
  it('should send the CSV header with the first batch, so nothing goes before a read succeeds', async () => {
    const chunks = await chunksOf(exportChunks(batches([pet(2)], [pet(1)]), 'csv'));
    expect(chunks).toEqual([
      `${HEADER}2,Pet 2,Dogs,available,,,,,,\n`,
      '1,Pet 1,Dogs,available,,,,,,\n',
    ]);
  });

  it('should answer no pet with the CSV header alone, and NDJSON with nothing', async () => {
    expect(await chunksOf(exportChunks(batches(), 'csv'))).toEqual([HEADER]);
    expect(await chunksOf(exportChunks(batches(), 'ndjson'))).toEqual([]);
  });

  it('should write each pet as its JSON, one line each, without the fields it lacks', async () => {
    const [chunk] = await chunksOf(
      exportChunks(
        batches([pet(2, { age: 3, tags: [{ id: 5, name: 'calm' }] }), pet(1)]),
        'ndjson',
      ),
    );
    expect(chunk.split('\n')).toEqual([
      '{"id":2,"name":"Pet 2","category":{"id":1,"name":"Dogs"},"photoUrls":[],"tags":[{"id":5,"name":"calm"}],"status":"available","age":3,"createdAt":"2026-12-01T10:00:00.000Z","updatedAt":"2026-12-01T10:00:00.000Z"}',
      '{"id":1,"name":"Pet 1","category":{"id":1,"name":"Dogs"},"photoUrls":[],"tags":[],"status":"available","createdAt":"2026-12-01T10:00:00.000Z","updatedAt":"2026-12-01T10:00:00.000Z"}',
      '',
    ]);
  });

  it('should join tags and photo URLs with "|" and quote what needs quoting', async () => {
    const [chunk] = await chunksOf(
      exportChunks(
        batches([
          pet(7, {
            name: 'Rex, "the Great"',
            tags: [
              { id: 1, name: 'calm' },
              { id: 2, name: 'small' },
            ],
            photoUrls: ['https://example.com/a.jpg', 'https://example.com/b.jpg'],
            age: 0,
            breed: 'Labrador',
            description: 'Line one\nline two',
          }),
        ]),
        'csv',
      ),
    );
    expect(chunk).toBe(
      `${HEADER}7,"Rex, ""the Great""",Dogs,available,calm|small,` +
        'https://example.com/a.jpg|https://example.com/b.jpg,0,Labrador,"Line one\nline two",\n',
    );
  });
});
