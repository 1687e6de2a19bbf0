import type { Account } from '../accounts/model.js';
import { messages } from '../messages.js';
import { ApiError } from '../platform/errors.js';
import type { Party } from '../platform/schema.js';
import type { CreateWithdrawalBody } from './schemas.js';
import { simulatedBankAccount, type Destination } from './service.js';

export type RecipientForWithdrawal = {
  id: string;
  status: string;
  legalName: string;
  document: string;
  documentType: 'cpf' | 'cnpj';
};

const DOCUMENT_KEY_TYPES = new Set(['cpf', 'cnpj']);

/**
 * Who may receive this withdrawal (spec: Modes). Mode 1 (no recipientId): only the holder's own
 * CPF (responsible party) or CNPJ (company). Mode 2: an active recipient of the account; cpf/cnpj
 * keys must be its document, other keys are checked by the provider against it.
 */
export async function resolveDestination(
  account: Account,
  input: CreateWithdrawalBody,
  findRecipient: (accountId: string, recipientId: string) => Promise<RecipientForWithdrawal | undefined>,
  serviceName: string,
): Promise<Destination> {
  const keyIsDocument = DOCUMENT_KEY_TYPES.has(input.pixKeyType);
  if (!input.recipientId) {
    if (!keyIsDocument) throw new ApiError(400, messages.thirdPartyKeyNeedsRecipient);
    assertKeyTypeAllowed(account, input.pixKeyType);
    if (input.pixKeyType === 'cpf') {
      if (input.pixKey !== account.responsible.cpf) throw new ApiError(403, messages.holderCpfOnly);
      return { holder: party(account.responsible.name, account.responsible.cpf, 'cpf'), recipientId: null, thirdParty: false };
    }
    if (!account.company || input.pixKey !== account.company.cnpj) throw new ApiError(403, messages.holderCnpjOnly);
    return { holder: party(account.company.legalName, account.company.cnpj, 'cnpj'), recipientId: null, thirdParty: false };
  }

  assertKeyTypeAllowed(account, input.pixKeyType);
  const recipient = await findRecipient(account.id, input.recipientId);
  // Only an approved recipient is an authorized one; one under review or rejected is not found.
  if (!recipient || (recipient.status !== 'active' && recipient.status !== 'deactivated')) throw new ApiError(404, messages.recipientNotFound);
  if (recipient.status === 'deactivated') throw new ApiError(422, messages.recipientDeactivated(serviceName));
  if (keyIsDocument) {
    if (input.pixKeyType !== recipient.documentType) throw new ApiError(400, messages.recipientKeyTypeMismatch);
    if (input.pixKey !== recipient.document) throw new ApiError(403, messages.recipientKeyMismatch);
  }
  return { holder: party(recipient.legalName, recipient.document, recipient.documentType), recipientId: recipient.id, thirdParty: true };
}

function assertKeyTypeAllowed(account: Account, type: string): void {
  if (!account.allowedPixKeyTypes.includes(type)) throw new ApiError(403, messages.pixKeyTypeNotAllowed(type));
}

const party = (name: string, document: string, documentType: 'cpf' | 'cnpj'): Party => ({ name, document, documentType, bankAccount: simulatedBankAccount() });
