import type { Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
    // Bytes, not objects: the readable holds at most one chunk ahead (its high-water mark is
    // in bytes, below a chunk's size), where an object stream would read 16 ahead.
    await pipeline(Readable.from(all(), { objectMode: false }), res);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') onCut(error);
    res.destroy();
  }
}
