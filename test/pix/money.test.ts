import { describe, it, expect } from 'vitest';
import { formatBrl } from '../../src/pix/money.js';

describe('formatBrl', () => {
  it.each([
    [123456, 'R$ 1.234,56'],
    [100, 'R$ 1,00'],
    [5, 'R$ 0,05'],
    [0, 'R$ 0,00'],
    [99, 'R$ 0,99'],
    [100000, 'R$ 1.000,00'],
    [99999, 'R$ 999,99'],
    [100000000, 'R$ 1.000.000,00'],
    [-100, '-R$ 1,00'],
    [-123456, '-R$ 1.234,56'],
    [Number.MAX_SAFE_INTEGER, 'R$ 90.071.992.547.409,91'],
  ])('%i → %j', (cents, expected) => {
    expect(formatBrl(cents)).toBe(expected);
  });

  it('uses a normal space, not a no-break space', () => {
    expect(formatBrl(100).charCodeAt(2)).toBe(0x20);
  });

  it.each([1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects %d', (cents) => {
    expect(() => formatBrl(cents)).toThrow(RangeError);
  });
});
