import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { dayStart } from '../platform/saoPauloDay.js';

/** A list page's filters as typed in its form: a status and a period of creation dates (AAAA-MM-DD). */
export type ListFilterForm = { status: string; from: string; to: string };

/** No filter: the latest rows. */
export const NO_FILTER: ListFilterForm = { status: '', from: '', to: '' };

const DAY_MS = 86_400_000;

/** The instant a day of America/Sao_Paulo starts; a malformed day, or one that does not exist (2026-02-30), is refused. */
function startOf(text: string): Date {
  const at = dayStart(text);
  if (!at) throw new InvalidRequestError(messages.filterDateInvalid);
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
    createdFrom: form.from ? startOf(form.from) : undefined,
    createdTo: form.to ? new Date(startOf(form.to).getTime() + DAY_MS) : undefined,
  };
}
