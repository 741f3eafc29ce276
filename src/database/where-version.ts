import { In } from 'typeorm';

/**
 * A repository's `where` for the row `id`, and with `versions` (an If-Match's) only at one of
 * them: the check is part of the write, so a concurrent change cannot slip in between.
 */
export const whereVersion = (id: number, versions?: number[]) =>
  versions ? { id, version: In(versions) } : { id };
