import type { FastifyRequest } from 'fastify';
import type { AccountService } from '../accounts/service.js';
import type { AlertService } from '../alerts/service.js';
import type { AuditService } from '../audit/service.js';
import type { Config } from '../config.js';
import type { PageKit } from '../pages/siteRoutes.js';
import type { FraudMarkService } from '../fraudmarks/service.js';
import type { InfractionService } from '../infractions/service.js';
import type { EvidenceService } from '../infractions/evidenceService.js';
import type { LedgerService } from '../ledger/service.js';
import type { OperatorAction } from '../operators/roles.js';
import type { OperatorService, OperatorSession } from '../operators/service.js';
import type { Clock } from '../platform/clock.js';
import type { ReconciliationService } from '../reconciliation/service.js';
import type { RecipientService } from '../recipients/service.js';
import type { RoutingService } from '../routing/service.js';
import type { ProviderSendService } from '../sends/service.js';
import type { TransactionService } from '../transactions/service.js';
import type { TreasuryService } from '../treasury/service.js';
import type { UserService } from '../users/service.js';
import type { WebhookService } from '../webhooks/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';

// What the back-office's page modules receive from backoffice/routes.tsx, which registers them.

/** The longest lists the back-office shows at once. */
export const PAGE_ROWS = 100;

/** What an operator's action leaves in the audit log besides its actor and result. */
export type AuditedAction = { action: string; accountId?: string | null | undefined; objectId?: string | null | undefined; input?: unknown; before?: unknown };

/** The back-office's pages share the page stack; their kit knows the operator and audits what they do. */
export type BackofficeKit = PageKit<OperatorSession> & {
  /** A page for signed-in operators; the menu shows the queues' lengths. */
  asOperator: PageKit<OperatorSession>['asUser'];
  /** Counts the queues again (after an action that changes them), for the menu of the page rendered next. */
  refreshCounts: (request: FastifyRequest) => Promise<void>;
  /**
   * An operator's action: refused (403) unless the role allows `permission`; done; then written to
   * the audit log (actor `operator:<id>`, the API route it equals, account, object, input, before
   * and the result as after). Its result is answered.
   */
  act: <T>(operator: OperatorSession, permission: OperatorAction, audited: AuditedAction, run: () => Promise<T>) => Promise<T>;
};

/** The services the back-office pages use (the same as the operator API's, wired in src/services.ts). */
export type BackofficeServices = {
  config: Config;
  clock: Clock;
  operators: OperatorService;
  audit: AuditService;
  alerts: AlertService;
  accounts: AccountService;
  ledger: LedgerService;
  fraudMarks: FraudMarkService;
  users: UserService;
  webhooks: WebhookService;
  transactions: TransactionService;
  reportTransactions: TransactionService;
  recipients: RecipientService;
  withdrawals: WithdrawalService;
  infractions: InfractionService;
  evidence: EvidenceService;
  providerSends: ProviderSendService;
  routing: RoutingService;
  reconciliation: ReconciliationService;
  treasury: TreasuryService;
};
