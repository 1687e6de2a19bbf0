import { NotAllowedError } from '../errors.js';
import { messages } from '../messages.js';
import type { UserRole } from '../platform/schema.js';

/** What a dashboard user may change, by role (DESIGN.md §10); every role reads. */
export type DashboardAction = 'charges' | 'keys' | 'webhooks' | 'withdrawals' | 'refunds' | 'disputes' | 'team';

const ALLOWED: Record<DashboardAction, readonly UserRole[]> = {
  // Charges are money coming in: the owner and finance create them (DESIGN.md §10 leaves it open).
  charges: ['owner', 'finance'],
  keys: ['owner', 'developer'],
  webhooks: ['owner', 'developer'],
  withdrawals: ['owner', 'finance'],
  refunds: ['owner', 'finance'],
  disputes: ['owner', 'finance'],
  team: ['owner'],
};

export const mayDo = (role: UserRole, action: DashboardAction): boolean => ALLOWED[action].includes(role);

/** Refuses (403) an action the role does not allow: the server's rule, whatever the page shows. */
export function assertMayDo(user: { role: UserRole }, action: DashboardAction): void {
  if (!mayDo(user.role, action)) throw new NotAllowedError(messages.roleNotAllowed(user.role));
}

/** Refuses (403) an action that needs TOTP when the user has not enrolled it. */
export function assertTotpEnrolled(user: { totpEnrolled: boolean }): void {
  if (!user.totpEnrolled) throw new NotAllowedError(messages.totpRequired);
}
