import fc from 'fast-check';
import { describe, it, expect } from 'vitest';
import { DEFAULT_FEES, type FeePlan } from '../../src/config.js';
import { computeFee } from '../../src/ledger/fees.js';

/** DESIGN.md §4: fixedCents + round(amountCents × bps / 10 000) half-up, clamped to [minCents, maxCents]. */
const plan = (fields: Partial<FeePlan>): FeePlan => ({ fixedCents: 0, bps: 0, minCents: 0, maxCents: Number.MAX_SAFE_INTEGER, ...fields });

/** The rule in exact integer arithmetic, as the reference for the property test. */
function referenceFee(feePlan: FeePlan, amountCents: number, capAtAmount: boolean): number {
  const proportional = (BigInt(amountCents) * BigInt(feePlan.bps) + 5_000n) / 10_000n;
  const raw = BigInt(feePlan.fixedCents) + proportional;
  const clamped = raw < BigInt(feePlan.minCents) ? feePlan.minCents : raw > BigInt(feePlan.maxCents) ? feePlan.maxCents : Number(raw);
  return capAtAmount ? Math.min(clamped, amountCents) : clamped;
}

describe('computeFee with the default plans', () => {
  // pixIn: 0.99% (99 bps), minimum R$ 0,50, maximum R$ 1.000,00; charges cap the fee at the amount.
  it.each([
    [100, 50], // 0.99 → 1, raised to the minimum 50 (≤ 100, so the cap does not bite)
    [1_500, 50], // 14.85 → 15, raised to 50
    [5_101, 50], // 50.4999 → 50
    [5_102, 51], // 50.5098 → 51
    [10_000, 99], // 99 exactly
    [12_345, 122], // 122.2155 → 122
    [1_000_000, 9_900], // 9 900 exactly
    [10_101_009, 100_000], // 99 999.9891 → 100 000 (reaches the maximum by rounding)
    [10_100_000, 99_990], // 99 990 exactly, just under the maximum
    [20_000_000, 100_000], // 198 000, lowered to the maximum
  ])('pixIn: %i cents → %i', (amountCents, expected) => {
    expect(computeFee(DEFAULT_FEES.pixIn, amountCents, { capAtAmount: true })).toBe(expected);
  });

  it('pixIn: an amount below the minimum fee pays its whole amount when capped', () => {
    expect(computeFee(DEFAULT_FEES.pixIn, 30, { capAtAmount: true })).toBe(30);
    expect(computeFee(DEFAULT_FEES.pixIn, 30, { capAtAmount: false })).toBe(50);
  });

  // withdrawal: R$ 1,00 flat; withdrawals are not capped (the fee is added to the debit).
  it.each([1, 100, 101, 12_345, 5_000_000, 1_000_000_000_000])('withdrawal: %i cents → 100', (amountCents) => {
    expect(computeFee(DEFAULT_FEES.withdrawal, amountCents, { capAtAmount: false })).toBe(100);
  });
});

describe('computeFee rounding', () => {
  it.each([
    // [bps, amountCents, expected]: each exact quotient ends in .5, which rounds up
    [50, 100, 1], // 0.5
    [50, 300, 2], // 1.5
    [50, 500, 3], // 2.5 (banker's rounding would give 2)
    [1, 5_000, 1], // 0.5
    [2_500, 2, 1], // 0.5
    [2_500, 10, 3], // 2.5
  ])('half-up: %i bps on %i cents → %i', (bps, amountCents, expected) => {
    expect(computeFee(plan({ bps }), amountCents, { capAtAmount: false })).toBe(expected);
  });

  it.each([
    // [bps, amountCents, expected]: just under and just over .5
    [50, 99, 0], // 0.495
    [50, 101, 1], // 0.505
    [1, 4_999, 0], // 0.4999
    [1, 5_001, 1], // 0.5001
    [1, 14_999, 1], // 1.4999
  ])('near .5: %i bps on %i cents → %i', (bps, amountCents, expected) => {
    expect(computeFee(plan({ bps }), amountCents, { capAtAmount: false })).toBe(expected);
  });
});

describe('computeFee clamping', () => {
  const clamped = plan({ fixedCents: 0, bps: 100, minCents: 200, maxCents: 1_000 });

  it('raises a fee below the minimum', () => {
    expect(computeFee(clamped, 10_000, { capAtAmount: false })).toBe(200); // 1% of 10 000 = 100
  });

  it('keeps a fee inside the bounds', () => {
    expect(computeFee(clamped, 50_000, { capAtAmount: false })).toBe(500);
  });

  it('lowers a fee above the maximum', () => {
    expect(computeFee(clamped, 1_000_000, { capAtAmount: false })).toBe(1_000); // 1% = 10 000
  });

  it('applies the bounds at their exact values', () => {
    expect(computeFee(clamped, 20_000, { capAtAmount: false })).toBe(200);
    expect(computeFee(clamped, 100_000, { capAtAmount: false })).toBe(1_000);
  });

  it('clamps the fixed part plus the proportional part', () => {
    const withFixed = plan({ fixedCents: 150, bps: 100, minCents: 0, maxCents: 1_000 });
    expect(computeFee(withFixed, 10_000, { capAtAmount: false })).toBe(250);
    expect(computeFee(withFixed, 90_000, { capAtAmount: false })).toBe(1_000); // 150 + 900
  });
});

describe('computeFee capAtAmount', () => {
  const minimum = plan({ fixedCents: 0, bps: 99, minCents: 50, maxCents: 100_000 });

  it('caps a minimum fee larger than the amount only when asked', () => {
    expect(computeFee(minimum, 40, { capAtAmount: true })).toBe(40);
    expect(computeFee(minimum, 40, { capAtAmount: false })).toBe(50);
  });

  it('changes nothing when the fee is already within the amount', () => {
    expect(computeFee(minimum, 50, { capAtAmount: true })).toBe(50);
    expect(computeFee(minimum, 10_000, { capAtAmount: true })).toBe(99);
  });

  it('gives a zero fee on a zero amount when capped', () => {
    expect(computeFee(minimum, 0, { capAtAmount: true })).toBe(0);
    expect(computeFee(minimum, 0, { capAtAmount: false })).toBe(50);
  });
});

describe('computeFee extreme rates', () => {
  it('bps 0 charges the fixed part only', () => {
    const fixed = plan({ fixedCents: 35, bps: 0 });
    expect(computeFee(fixed, 1, { capAtAmount: false })).toBe(35);
    expect(computeFee(fixed, 1_000_000_000, { capAtAmount: false })).toBe(35);
    expect(computeFee(plan({ bps: 0 }), 1_000_000, { capAtAmount: false })).toBe(0);
  });

  it('bps 10000 charges the whole amount (plus the fixed part unless capped)', () => {
    const all = plan({ fixedCents: 10, bps: 10_000 });
    expect(computeFee(all, 1_000, { capAtAmount: false })).toBe(1_010);
    expect(computeFee(all, 1_000, { capAtAmount: true })).toBe(1_000);
    expect(computeFee(plan({ bps: 10_000 }), 123_456, { capAtAmount: false })).toBe(123_456);
  });
});

describe('computeFee properties', () => {
  const feePlan = fc
    .record({
      fixedCents: fc.integer({ min: 0, max: 1_000_000 }),
      bps: fc.integer({ min: 0, max: 10_000 }),
      bounds: fc.tuple(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 0, max: 1e12 })),
    })
    .map(({ fixedCents, bps, bounds: [a, b] }): FeePlan => ({ fixedCents, bps, minCents: Math.min(a, b), maxCents: Math.max(a, b) }));
  const amount = fc.integer({ min: 0, max: 1e12 });

  it('is an integer within [minCents, maxCents] without the cap', () => {
    fc.assert(
      fc.property(feePlan, amount, (p, amountCents) => {
        const fee = computeFee(p, amountCents, { capAtAmount: false });
        expect(Number.isInteger(fee)).toBe(true);
        expect(fee).toBeGreaterThanOrEqual(p.minCents);
        expect(fee).toBeLessThanOrEqual(p.maxCents);
      }),
    );
  });

  it('is an integer, at most the amount and at most maxCents with the cap', () => {
    fc.assert(
      fc.property(feePlan, amount, (p, amountCents) => {
        const fee = computeFee(p, amountCents, { capAtAmount: true });
        expect(Number.isInteger(fee)).toBe(true);
        expect(fee).toBeGreaterThanOrEqual(0);
        expect(fee).toBeLessThanOrEqual(Math.min(amountCents, p.maxCents));
        expect(fee).toBe(Math.min(computeFee(p, amountCents, { capAtAmount: false }), amountCents));
      }),
    );
  });

  it('equals the exact integer rule while amount × bps stays a safe integer', () => {
    // Beyond Number.MAX_SAFE_INTEGER the floating-point product amount × bps is no longer exact,
    // and the result can be one cent off (e.g. 999 999 995 001 cents at 9 999 bps), so the exact
    // comparison is limited to the range where computeFee's arithmetic is exact.
    fc.assert(
      fc.property(feePlan, amount, fc.boolean(), (p, amountCents, capAtAmount) => {
        fc.pre(amountCents * p.bps + 5_000 <= Number.MAX_SAFE_INTEGER);
        expect(computeFee(p, amountCents, { capAtAmount })).toBe(referenceFee(p, amountCents, capAtAmount));
      }),
    );
  });
});
