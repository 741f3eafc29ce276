import { describe, expect, it } from '@jest/globals';
import { joinedInChunks } from './stream-response.js';

describe('joinedInChunks', () => {
  it('should join lines in order into chunks of about 32 KiB, a longer line alone', () => {
    const line = `${'x'.repeat(999)}\n`;
    const long = `${'y'.repeat(100_000)}\n`;
    const lines = [...Array<string>(70).fill(line), long, line];

    const chunks = [...joinedInChunks(lines)];

    expect(chunks.join('')).toBe(lines.join(''));
    expect(chunks.map((chunk) => chunk.length)).toEqual([33_000, 33_000, 4_000 + 100_001, 1_000]);
  });

  it('should yield nothing for no line', () => {
    expect([...joinedInChunks([])]).toEqual([]);
  });
});
