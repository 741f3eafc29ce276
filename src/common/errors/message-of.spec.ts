import { describe, expect, it } from '@jest/globals';
import { messageOf, stackOf } from './message-of.js';

describe('messageOf and stackOf', () => {
  it("should describe an Error by its message, or by its stack for a failure's log", () => {
    const error = new Error('disk full');
    expect(messageOf(error)).toBe('disk full');
    expect(stackOf(error)).toBe(error.stack);
  });

  it('should describe anything else thrown as text', () => {
    expect(messageOf('timeout')).toBe('timeout');
    expect(stackOf(42)).toBe('42');
  });
});
