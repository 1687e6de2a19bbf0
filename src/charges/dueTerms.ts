import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { daysBetween } from '../pix/bankingDays.js';
import { amountDueOn, hundredthsOf, type DueTerms, type DueValue } from '../pix/dueAmount.js';

/** A due date at most five years ahead: a bill, not a bond (and every day count stays short). */
const MAX_DAYS_AHEAD = 5 * 366;

/** `value` reaches `whole` cents (or 100%) of `base`. */
const reaches = (value: DueValue, base: number, times = 1): boolean =>
  'amountCents' in value ? value.amountCents * times >= base : hundredthsOf(value.percent) * times >= 10_000;

/**
 * The checks of a due-date charge's terms that depend on its amount and on today (BCB's OpenAPI
 * `CobVOperacaoInvalida`): 400 with the first that fails. A discount may never reach the amount
 * less the abatement on any day it can be paid (BCB calls that an error), an abatement never the amount.
 */
export function checkDueTerms(terms: DueTerms, originalCents: number, today: string): void {
  const refuse = (message: string) => {
    throw new InvalidRequestError(message);
  };
  if (terms.dueDate < today) refuse(messages.dueDateInPast);
  if (daysBetween(today, terms.dueDate) > MAX_DAYS_AHEAD) refuse(messages.dueDateTooFar);
  const { fine, interest, abatement, discount } = terms;
  if (fine && 'amountCents' in fine && fine.amountCents >= originalCents) refuse(messages.fineTooLarge);
  if (interest && 'amountCents' in interest && interest.amountCents >= originalCents) refuse(messages.interestTooLarge);
  if (abatement && reaches(abatement, originalCents)) refuse(messages.abatementTooLarge);
  if (!discount) return;
  // Discounts apply to the original less the abatement (MAN eq. 3).
  const base = originalCents - (abatement ? amountDueOn({ ...terms, discount: undefined }, originalCents, terms.dueDate).abatementCents : 0);
  if ('until' in discount) {
    if (discount.until.some((tier) => tier.date < today || tier.date > terms.dueDate)) refuse(messages.discountDateOutOfRange);
    if (discount.until.some((tier) => reaches(tier, base))) refuse(messages.discountTooLarge);
    return;
  }
  // The most days early: paid today. Business days are never more than calendar days.
  if (reaches(discount.perDayEarly, base, Math.max(1, daysBetween(today, terms.dueDate)))) refuse(messages.discountTooLarge);
}
