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

export interface PixProvider {
  readonly name: string;
  /** Registers a dynamic charge; throws ProviderError when the provider refuses or cannot answer. */
  createCharge(request: ChargeRequest): Promise<CreatedCharge>;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}
