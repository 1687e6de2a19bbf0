import { describe, it, expect } from 'vitest';
import { parseBrl } from '../../src/pix/money.js';
import { formatBrl } from '../../src/messages.js';

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

describe('parseBrl', () => {
  it.each([
    ['15', 1500],
    ['15,5', 1550],
    ['15,50', 1550],
    ['1.234,56', 123_456],
    ['R$ 1.234,56', 123_456],
    ['15.50', 1550],
    ['0,01', 1],
    [' 7 ', 700],
  ])('%s is %i cents', (text, cents) => {
    expect(parseBrl(text)).toBe(cents);
  });

  it.each(['', 'abc', '1,234', '15,555', '1.23.4', '-5', '1e3', '12.345.678,9x'])('%j is not an amount', (text) => {
    expect(parseBrl(text)).toBeNaN();
  });

  it('reads back what formatBrl writes', () => {
    for (const cents of [1, 99, 100, 123_456, 987_654_321]) expect(parseBrl(formatBrl(cents))).toBe(cents);
  });
});
