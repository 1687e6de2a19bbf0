import { NotFoundError } from '../errors.js';
import { isId } from '../platform/ids.js';
import type { ListFilterForm } from './filters.js';

/** A form field as text ('' when absent or not text). */
export function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value: unknown = Reflect.get(body, name);
  return typeof value === 'string' ? value : '';
}

/** A path parameter naming one of our ids: a malformed one reads as not found (404, `notFound`), before any query. */
export function idParam(params: unknown, name: string, notFound: string): string {
  const id = field(params, name);
  if (!isId(id)) throw new NotFoundError(notFound);
  return id;
}

/** The named fields of a form, each as text. */
export function fieldsOf<K extends string>(body: unknown, names: readonly K[]): Record<K, string> {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- fromEntries over exactly `names` builds that record
  return Object.fromEntries(names.map((name) => [name, field(body, name)])) as Record<K, string>;
}

/** A list page's filters from its query (`?status=&de=&ate=`). */
export function filterOf(query: unknown): ListFilterForm {
  return { status: field(query, 'status'), from: field(query, 'de'), to: field(query, 'ate') };
}

export { checked } from '../platform/validation.js';
