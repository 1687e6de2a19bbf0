import { describe, it, expect } from 'vitest';
import { END_TO_END_ID_PATTERN, REFUND_END_TO_END_ID_PATTERN, generateEndToEndId } from '../../src/pix/endToEndId.js';

const ISPB = '12345678';

describe('generateEndToEndId', () => {
  it.each([
    // Seconds are dropped, not rounded.
    ['2026-01-02T03:04:59Z', '202601020304'],
    // A local offset is converted to UTC (crosses the day boundary).
    ['2026-01-01T23:30:00-03:00', '202601020230'],
    ['2025-12-31T21:59:59.999-03:00', '202601010059'],
  ])('encodes the UTC minute of %s', (iso, minute) => {
    const id = generateEndToEndId(ISPB, new Date(iso));
    expect(id).toHaveLength(32);
    expect(id).toMatch(END_TO_END_ID_PATTERN);
    expect(id.slice(0, 21)).toBe(`E${ISPB}${minute}`);
  });

  it('builds refund ids with D', () => {
    const id = generateEndToEndId('0000000A', new Date('2026-01-02T03:04:05Z'), 'D');
    expect(id).toMatch(REFUND_END_TO_END_ID_PATTERN);
    expect(id).not.toMatch(END_TO_END_ID_PATTERN);
    expect(id.startsWith('D0000000A202601020304')).toBe(true);
  });

  it('generates 1000 distinct ids in the same minute', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const ids = Array.from({ length: 1000 }, () => generateEndToEndId(ISPB, at));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(END_TO_END_ID_PATTERN);
    // The suffix alphabet is used in full (both cases and digits), not only a subset.
    const suffixes = ids.map((id) => id.slice(21)).join('');
    expect(suffixes).toMatch(/[a-z]/);
    expect(suffixes).toMatch(/[A-Z]/);
    expect(suffixes).toMatch(/[0-9]/);
  });

  it.each(['1234567', '123456789', '1234567a', '1234-678', ''])('rejects ISPB %j', (ispb) => {
    expect(() => generateEndToEndId(ispb, new Date())).toThrow(/ISPB/);
  });
});
