import { z } from 'zod';
import { messages, receivedText } from '../messages.js';
import type { UserRole } from '../platform/schema.js';
import { USER_ROLES } from './service.js';

const isRole = (value: unknown): value is UserRole => USER_ROLES.some((role) => role === value);

/** An invitation: the user's e-mail and role (the operator's API, and an owner in the dashboard). */
export const inviteUserBody = z.object(
  {
    email: z.email({ error: messages.userEmailInvalid }).max(254, messages.userEmailInvalid),
    role: z
      .unknown()
      .refine(isRole, { error: (issue) => messages.userRoleInvalid(receivedText(issue.input)) })
      .meta({ type: 'string', enum: [...USER_ROLES] }),
  },
  { error: messages.bodyNotObject },
);

export const invitedUserResponse = z.object({
  userId: z.string(),
  inviteUrl: z.string().meta({ description: 'One-time link, good for 72 hours: the user chooses a password there.' }),
});
