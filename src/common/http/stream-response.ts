import type { Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Below V8's large-object size (128 KiB with room to spare): a chunk joined from many lines
 * is then short-lived garbage of the young generation, where a batch's text in one string
 * would go to the large-object space, which only a full collection frees, and a fast
 * export would grow the heap by hundreds of megabytes before one came.
 */
const CHUNK_CHARS = 32 * 1024;

/** `lines` joined, in order, in strings of about CHUNK_CHARS (a longer line alone). */
export function* joinedInChunks(lines: string[]): Generator<string> {
  let start = 0;
  let chars = 0;
  for (let i = 0; i < lines.length; i++) {
    chars += lines[i].length;
    if (chars >= CHUNK_CHARS) {
      yield lines.slice(start, i + 1).join('');
      start = i + 1;
      chars = 0;
    }
  }
  if (start < lines.length) yield lines.slice(start).join('');
}

/**
 * Answers 200 with `chunks`, produced at the pace the client reads: the source is read only
 * while the socket takes what is written (a chunk ahead at most), so a slow reader pauses
 * the source instead of making the service buffer. The first chunk is awaited before
 * anything is sent, so a source that cannot start (the database is down) gets the ordinary
 * error response. A failure after that can only cut the answer short: the socket is
 * destroyed, so the client sees a truncated body, never one that looks complete, and
 * `onCut` is told (a client that went away is no failure and is not).
 */
export async function streamResponse(
  res: Response,
  headers: Record<string, string>,
  chunks: AsyncIterable<string>,
  onCut: (error: unknown) => void,
): Promise<void> {
  const source = chunks[Symbol.asyncIterator]();
  const first = await source.next();
  res.status(200);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  async function* all(): AsyncGenerator<string> {
    try {
      if (first.done) return;
      yield first.value;
      for (let next = await source.next(); !next.done; next = await source.next()) {
        yield next.value;
      }
    } finally {
      // A pipeline ended early (the client went away) closes the source too: no more reads.
      await source.return?.();
    }
  }
  try {
    // Bytes, not objects: the readable reads ahead up to its high-water mark in bytes (a
    // chunk or two), where an object stream would read 16 chunks ahead.
    await pipeline(Readable.from(all(), { objectMode: false }), res);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') onCut(error);
    res.destroy();
  }
}
