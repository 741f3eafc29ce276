import { parseArgs } from 'node:util';
import type { MediaGcOptions } from '../media/media-gc.js';
import { UsageError } from './create-admin.command.js';
import { messageOf } from '../common/errors/message-of.js';

export const MEDIA_GC_USAGE =
  'Usage: npm run cli -- media-gc [--delete] [--min-age-minutes N (default 60)]';

const DEFAULT_MIN_AGE_MINUTES = 60;

/** Parses media-gc's options: a dry run unless --delete is given. */
export function parseMediaGc(args: string[]): MediaGcOptions {
  let values: { delete?: boolean; 'min-age-minutes'?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        delete: { type: 'boolean' },
        'min-age-minutes': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(messageOf(error));
  }
  const minutes = values['min-age-minutes'] ?? String(DEFAULT_MIN_AGE_MINUTES);
  if (!/^\d{1,6}$/.test(minutes)) {
    throw new UsageError('--min-age-minutes must be a whole number of minutes');
  }
  return { delete: values.delete ?? false, minAgeMs: Number(minutes) * 60_000 };
}
