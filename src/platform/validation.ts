import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';

// Checks without a message of their own (mostly the operator API) still answer in Portuguese,
// naming the field: "limits.pixPerHour inválido."
z.config({
  customError: (issue) => {
    const path = (issue.path ?? []).join('.');
    return path ? messages.fieldInvalid(path) : messages.bodyInvalid;
  },
});

/** A value checked by an API schema outside a route's own body (a form, a batch's item): the same checks, in the same order, with the same first message (400). */
export function checked<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidRequestError(parsed.error.issues[0]?.message ?? messages.bodyInvalid);
  return parsed.data;
}
