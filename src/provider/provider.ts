import type { Party } from '../platform/schema.js';

/**
 * What the gateway needs from a PIX provider (PSP). The built-in simulator implements it; a real
 * PSP adapter implements the same calls. Calls may do network I/O: never call them inside a
 * database transaction.
 */
export type ChargeRequest = {
  accountId: string;
  transactionId: string;
  amountCents: number;
  expiresAt: Date;
};

export type CreatedCharge = {
  /** Location of the dynamic charge's payload, without scheme (BR Code field 26.25). */
  location: string;
};

export type WithdrawalRequest = {
  accountId: string;
  transactionId: string;
  amountCents: number;
  pixKey: string;
  pixKeyType: 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';
  /** The party the money may go to: its document must match the key's holder. */
  expectedHolder: Party;
};

/** The provider's answer to a submission that reached it. */
export type WithdrawalSubmission =
  /** Accepted: the outcome arrives later (settlement, failure). */
  | { status: 'accepted'; beneficiary: Party; confirmationInterrupted?: boolean }
  /** Refused after reaching the network (e.g. the key's holder is not the expected one). */
  | { status: 'rejected'; reason: string };

/** Final outcome of a withdrawal as the provider knows it. */
export type WithdrawalOutcome = { status: 'paid'; beneficiary: Party } | { status: 'failed'; reason: string } | { status: 'unknown' };

export interface PixProvider {
  readonly name: string;
  /** Registers a dynamic charge; throws ProviderError when the provider refuses or cannot answer. */
  createCharge(request: ChargeRequest): Promise<CreatedCharge>;
  /**
   * Sends a withdrawal. Throws ProviderError when nothing was sent (safe to undo), and
   * ProviderOutcomeUnknownError when it cannot tell whether it was sent.
   */
  createWithdrawal(request: WithdrawalRequest): Promise<WithdrawalSubmission>;
  /** Asks for the outcome of a withdrawal (reconciliation of unknown outcomes). */
  withdrawalOutcome(transactionId: string): Promise<WithdrawalOutcome>;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}

export class ProviderOutcomeUnknownError extends Error {
  override readonly name = 'ProviderOutcomeUnknownError';
}
