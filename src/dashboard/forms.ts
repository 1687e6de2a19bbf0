import type { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';

/** A form field as text ('' when absent or not text). */
export function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value: unknown = Reflect.get(body, name);
  return typeof value === 'string' ? value : '';
}

/** A form checked by the API's own schema: the same checks, in the same order, with the same first message (400). */
export function checked<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidRequestError(parsed.error.issues[0]?.message ?? messages.bodyInvalid);
  return parsed.data;
}
