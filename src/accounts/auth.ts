import type { FastifyRequest } from 'fastify';
import { messages } from '../messages.js';
import { bearerToken } from '../platform/bearer.js';
import { NotAllowedError, UnauthenticatedError } from '../errors.js';
import type { Account } from './model.js';
import type { AccountService } from './service.js';

type Merchant = { account: Account; keyId: string };

declare module 'fastify' {
  interface FastifyRequest {
    merchant: Merchant;
  }
}

/**
 * onRequest hook for /v1 and /sandbox/v1: runs before body parsing and validation, so a
 * caller without a valid key learns nothing about the body rules. Order of the checks: spec §Authentication.
 */
export function merchantAuthentication(accounts: AccountService) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new UnauthenticatedError(messages.apiKeyMissing);
    const key = await accounts.resolveApiKey(token);
    if (!key) throw new UnauthenticatedError(messages.apiKeyInvalid);
    const { account, ipAllowed } = await accounts.cachedAccount(key.accountId);
    if (account.kycStatus !== 'approved') throw new NotAllowedError(messages.accountNotApproved);
    if (account.blocked) throw new NotAllowedError(messages.accountBlocked);
    // A key's own list replaces the account's (DESIGN.md §5).
    const allowed = key.ipAllowed ?? ipAllowed;
    if (!allowed(request.ip)) throw new NotAllowedError(messages.ipNotAllowed);
    await accounts.noteApiKeyUse(key.keyId);
    request.merchant = { account, keyId: key.keyId };
  };
}
