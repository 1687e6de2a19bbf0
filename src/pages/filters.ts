import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';

/** A list page's filters as typed in its form: a status and a period of creation dates (AAAA-MM-DD). */
export type ListFilterForm = { status: string; from: string; to: string };

/** No filter: the latest rows. */
export const NO_FILTER: ListFilterForm = { status: '', from: '', to: '' };

/** Brazil has kept UTC−3 all year since 2019: a day in America/Sao_Paulo starts at 03:00 UTC. */
const SAO_PAULO_OFFSET = '-03:00';
const DAY_MS = 86_400_000;

function dayStart(text: string): Date {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00${SAO_PAULO_OFFSET}`) : new Date(Number.NaN);
  // A date that does not exist (2026-02-30) rolls over in Date; the round trip refuses it.
  if (Number.isNaN(at.getTime()) || new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 10) !== text)
    throw new InvalidRequestError(messages.filterDateInvalid);
  return at;
}

/**
 * The filters of a list, checked: an unknown status or a malformed date is a 400 with its message,
 * never an empty list that looks like "nothing happened". `to` includes its whole day.
 */
export function parseListFilter<S extends string>(form: ListFilterForm, statuses: readonly S[]) {
  const status = statuses.find((known) => known === form.status);
  if (form.status !== '' && !status) throw new InvalidRequestError(messages.filterStatusInvalid);
  return {
    status,
    createdFrom: form.from ? dayStart(form.from) : undefined,
    createdTo: form.to ? new Date(dayStart(form.to).getTime() + DAY_MS) : undefined,
  };
}
