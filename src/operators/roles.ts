import { NotAllowedError } from '../errors.js';
import { messages } from '../messages.js';
import type { OperatorRole } from '../platform/schema.js';

export const OPERATOR_ROLES = ['admin', 'compliance', 'support'] as const satisfies readonly OperatorRole[];

/** What an operator may change in the back-office, by role (DESIGN.md §11); every role reads. */
export type OperatorAction =
  | 'kyc'
  | 'recipients'
  | 'disputes'
  | 'blocks'
  | 'fraudMarks'
  | 'accounts'
  | 'withdrawals'
  | 'adjustments'
  | 'webhookResend'
  | 'operators'
  | 'routing'
  | 'reconciliation'
  | 'treasury';

const ALLOWED: Record<OperatorAction, readonly OperatorRole[]> = {
  kyc: ['admin', 'compliance'],
  recipients: ['admin', 'compliance'],
  disputes: ['admin', 'compliance'],
  blocks: ['admin', 'compliance'],
  // The list of fraud-marked keys and documents (DESIGN.md §19): compliance's, as blocks are.
  fraudMarks: ['admin', 'compliance'],
  // Creating accounts, their settings (mode, limits, fees, allowlist, users), approving
  // withdrawals and moving money by hand: admin only (§11 gives compliance the list above).
  accounts: ['admin'],
  withdrawals: ['admin'],
  adjustments: ['admin'],
  webhookResend: ['admin', 'support'],
  operators: ['admin'],
  // Which PSPs take new charges and withdrawals (DESIGN.md §14): admin only, as the settings above.
  routing: ['admin'],
  // Running a reconciliation and reading the PSPs' balances now (DESIGN.md §14): admin, as the
  // API's admin token; every role reads their results.
  reconciliation: ['admin'],
  treasury: ['admin'],
};

export const operatorMayDo = (role: OperatorRole, action: OperatorAction): boolean => ALLOWED[action].includes(role);

/** Refuses (403) an action the role does not allow: the server's rule, whatever the page shows. */
export function assertOperatorMayDo(operator: { role: OperatorRole }, action: OperatorAction): void {
  if (!operatorMayDo(operator.role, action)) throw new NotAllowedError(messages.roleNotAllowed(operator.role));
}
