import type { AccountService } from '../accounts/service.js';
import type { ChargeService } from '../charges/service.js';
import type { Config } from '../config.js';
import type { HistoryService } from '../history/service.js';
import type { HoldService } from '../holds/service.js';
import type { DeadlineReminderService } from '../infractions/reminders.js';
import type { InfractionService } from '../infractions/service.js';
import type { EvidenceService } from '../infractions/evidenceService.js';
import type { LedgerService } from '../ledger/service.js';
import type { Clock } from '../platform/clock.js';
import type { RecipientService } from '../recipients/service.js';
import type { RecurrenceService } from '../recurrences/service.js';
import type { RefundService } from '../refunds/service.js';
import type { StaticQrService } from '../staticqr/service.js';
import type { TransactionService } from '../transactions/service.js';
import type { SessionUser, UserService } from '../users/service.js';
import type { WebhookService } from '../webhooks/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import type { PageKit } from '../pages/siteRoutes.js';

// What the dashboard's page modules receive from dashboard/routes.tsx, which registers them.

/** The dashboard's pages share the page stack with the back-office; their kit knows the merchant's user. */
export type DashboardKit = PageKit<SessionUser>;

/** The services the dashboard pages use (the same as the API's, wired in src/services.ts). */
export type DashboardServices = {
  config: Config;
  clock: Clock;
  users: UserService;
  accounts: AccountService;
  ledger: LedgerService;
  transactions: TransactionService;
  charges: ChargeService;
  refunds: RefundService;
  infractions: InfractionService;
  deadlineReminders: DeadlineReminderService;
  evidence: EvidenceService;
  withdrawals: WithdrawalService;
  recipients: RecipientService;
  webhooks: WebhookService;
  holds: HoldService;
  history: HistoryService;
  staticQr: StaticQrService;
  recurrences: RecurrenceService;
};
