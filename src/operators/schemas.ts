import { z } from 'zod';
import { messages, receivedText } from '../messages.js';
import type { OperatorRole } from '../platform/schema.js';
import { OPERATOR_ROLES } from './roles.js';

const isOperatorRole = (value: unknown): value is OperatorRole => OPERATOR_ROLES.some((role) => role === value);

/** A new operator: e-mail and role (the operator API, and an admin in the back-office). */
export const inviteOperatorBody = z.object(
  {
    email: z.email({ error: messages.userEmailInvalid }).max(254, messages.userEmailInvalid),
    role: z
      .unknown()
      .refine(isOperatorRole, { error: (issue) => messages.operatorRoleInvalid(receivedText(issue.input)) })
      .meta({ type: 'string', enum: [...OPERATOR_ROLES] }),
  },
  { error: messages.bodyNotObject },
);

/** A role change (the back-office's Operadores): the invitation's own role check. */
export const operatorRoleBody = inviteOperatorBody.pick({ role: true });

export const invitedOperatorResponse = z.object({
  operatorId: z.string(),
  inviteUrl: z
    .string()
    .meta({ description: 'One-time link, good for 72 hours: the operator chooses a password there, then enrols TOTP at the first sign-in.' }),
});
