import type { FeePlan } from '../config.js';

/**
 * DESIGN.md §4: fixed + round(amount × bps / 10 000), clamped to [min, max]. Integer arithmetic,
 * half-up rounding. A charge's fee never exceeds its amount (its net is never negative).
 */
export function computeFee(plan: FeePlan, amountCents: number, options: { capAtAmount: boolean }): number {
  const proportional = Math.floor((amountCents * plan.bps + 5_000) / 10_000);
  const fee = Math.min(Math.max(plan.fixedCents + proportional, plan.minCents), plan.maxCents);
  return options.capAtAmount ? Math.min(fee, amountCents) : fee;
}
