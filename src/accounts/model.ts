import type { FeePlan } from '../config.js';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { recordOf } from '../platform/records.js';
import type { AccountRow, AccountsTable, TransactionType } from '../platform/schema.js';

export const LIMIT_NAMES = [
  'pixPerHour',
  'withdrawPerSecond',
  'withdrawPerMinute',
  'withdrawPerHour',
  'recipientsPerHour',
  'chargeMinCents',
  'chargeMaxCents',
  'withdrawMinCents',
  'withdrawMaxCents',
  'withdrawDailyCents',
  'withdrawMonthlyCents',
] as const satisfies readonly (keyof AccountsTable)[];

/** Per-account limits (DESIGN.md §5): their columns on the account, named the same. */
export type AccountLimits = Pick<AccountsTable, (typeof LIMIT_NAMES)[number]>;

export type Account = {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  city: string;
  responsible: { name: string; cpf: string };
  company: { legalName: string; cnpj: string } | null;
  kycStatus: 'approved' | 'pending' | 'rejected';
  blocked: boolean;
  withdrawalMode: 'automatic' | 'manual';
  ipAllowlist: string[];
  allowedPixKeyTypes: string[];
  recipientLimit: number;
  limits: AccountLimits;
  fees: { pixIn: FeePlan; withdrawal: FeePlan };
  createdAt: Date;
  updatedAt: Date;
};

type FeePlanRow = { transactionType: TransactionType } & FeePlan;

export function toAccount(row: AccountRow, feePlans: FeePlanRow[]): Account {
  const plan = (type: TransactionType): FeePlan => {
    const found = feePlans.find((candidate) => candidate.transactionType === type);
    if (!found) throw new Error(`account ${row.id} has no ${type} fee plan`);
    return { fixedCents: found.fixedCents, bps: found.bps, minCents: found.minCents, maxCents: found.maxCents };
  };
  const limits: AccountLimits = recordOf(LIMIT_NAMES, (name) => row[name]);
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    emailVerified: row.emailVerified,
    city: row.city,
    responsible: { name: row.responsibleName, cpf: row.responsibleCpf },
    company: row.companyCnpj ? { legalName: row.companyLegalName ?? '', cnpj: row.companyCnpj } : null,
    kycStatus: row.kycStatus,
    blocked: row.blocked,
    withdrawalMode: row.withdrawalMode,
    ipAllowlist: row.ipAllowlist,
    allowedPixKeyTypes: row.allowedPixKeyTypes,
    recipientLimit: row.recipientLimit,
    limits,
    fees: { pixIn: plan('pix_in'), withdrawal: plan('withdrawal') },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The operator API's view of an account. */
export function presentAccount(account: Account) {
  const { id, createdAt, updatedAt, ...rest } = account;
  return { accountId: id, ...rest, createdAt: createdAt.getTime(), updatedAt: updatedAt.getTime() };
}

/** A charge's amount (a charge, a static QR code's, a recurrence's cycle) within the account's limits: else a 400 with the spec's messages. */
export function assertChargeAmountAllowed(limits: AccountLimits, amountCents: number): void {
  if (amountCents < limits.chargeMinCents) throw new InvalidRequestError(messages.amountBelowMinimum(limits.chargeMinCents));
  if (amountCents > limits.chargeMaxCents) throw new InvalidRequestError(messages.amountAboveMaximum(limits.chargeMaxCents));
}
