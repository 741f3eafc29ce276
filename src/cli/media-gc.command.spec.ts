import { describe, expect, it } from '@jest/globals';
import { UsageError } from './create-admin.command.js';
import { parseMediaGc } from './media-gc.command.js';

describe(parseMediaGc.name, () => {
  it('should default to a dry run over objects at least an hour old', () => {
    expect(parseMediaGc([])).toEqual({ delete: false, minAgeMs: 3_600_000 });
  });

  it('should delete and take another minimum age when told', () => {
    expect(parseMediaGc(['--delete', '--min-age-minutes', '0'])).toEqual({
      delete: true,
      minAgeMs: 0,
    });
  });

  it.each([[['--min-age-minutes', '-5']], [['--min-age-minutes', '1.5']], [['--force']]])(
    'should refuse %j',
    (args) => {
      expect(() => parseMediaGc(args)).toThrow(UsageError);
    },
  );
});
