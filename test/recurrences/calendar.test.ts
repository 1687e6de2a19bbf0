import { describe, expect, it } from 'vitest';
import { cycleDate } from '../../src/pix/recurrenceCalendar.js';

/** The days of a recurrence's cycles (BCB's periodicidade). */
describe('cycleDate', () => {
  it.each([
    ['2027-03-10', 'weekly', 1, '2027-03-10'],
    ['2027-03-10', 'weekly', 3, '2027-03-24'],
    ['2027-12-28', 'weekly', 2, '2028-01-04'],
    ['2027-01-31', 'monthly', 2, '2027-02-28'],
    ['2028-01-31', 'monthly', 2, '2028-02-29'],
    ['2027-01-31', 'monthly', 3, '2027-03-31'],
    ['2027-11-15', 'monthly', 3, '2028-01-15'],
    ['2027-05-31', 'quarterly', 2, '2027-08-31'],
    ['2027-08-31', 'semiannual', 2, '2028-02-29'],
    ['2028-02-29', 'annual', 2, '2029-02-28'],
    ['2028-02-29', 'annual', 5, '2032-02-29'],
  ] as const)('from %s, %s, cycle %i falls on %s', (start, frequency, cycle, expected) => {
    expect(cycleDate(start, frequency, cycle)).toBe(expected);
  });
});
