import type { Account } from '../accounts/model.js';
import { InvalidRequestError, InvalidStateError, NotAllowedError, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import type { PixKeyType } from '../pix/pixKeys.js';
import type { Holder, RecipientRow } from '../platform/schema.js';

/** Where a withdrawal may go: the holder (Mode 1) or an approved recipient (Mode 2). */
export type Destination = { holder: Holder; recipientId: string | null; thirdParty: boolean };

export type DestinationRequest = { pixKey: string; pixKeyType: PixKeyType; recipientId?: string | null | undefined };

/** What the rules need to know of the recipient the request names. */
export type RecipientForWithdrawal = Pick<RecipientRow, 'id' | 'status' | 'legalName' | 'document' | 'documentType'>;

const isDocumentKey = (type: PixKeyType): type is 'cpf' | 'cnpj' => type === 'cpf' || type === 'cnpj';

/**
 * Who may receive this withdrawal (spec: Modes), checks in the spec's order. Mode 1 (no
 * recipientId): only the holder's own CPF (responsible party) or CNPJ (company). Mode 2: an active
 * recipient of the account (`recipient`: the one named, if the account has it); cpf/cnpj keys
 * must be its document, other keys are checked by the provider against it.
 */
export function resolveDestination(
  account: Account,
  request: DestinationRequest,
  recipient: RecipientForWithdrawal | undefined,
  serviceName: string,
): Destination {
  if (!request.recipientId) {
    if (!isDocumentKey(request.pixKeyType)) throw new InvalidRequestError(messages.thirdPartyKeyNeedsRecipient);
    assertKeyTypeAllowed(account, request.pixKeyType);
    if (request.pixKeyType === 'cpf') {
      if (request.pixKey !== account.responsible.cpf) throw new NotAllowedError(messages.holderCpfOnly);
      return { holder: { name: account.responsible.name, document: account.responsible.cpf, documentType: 'cpf' }, recipientId: null, thirdParty: false };
    }
    if (!account.company || request.pixKey !== account.company.cnpj) throw new NotAllowedError(messages.holderCnpjOnly);
    return { holder: { name: account.company.legalName, document: account.company.cnpj, documentType: 'cnpj' }, recipientId: null, thirdParty: false };
  }

  assertKeyTypeAllowed(account, request.pixKeyType);
  // Only an approved recipient is an authorized one; one under review or rejected is not found.
  if (!recipient || recipient.id !== request.recipientId || (recipient.status !== 'active' && recipient.status !== 'deactivated')) {
    throw new NotFoundError(messages.recipientNotFound);
  }
  if (recipient.status === 'deactivated') throw new InvalidStateError(messages.recipientDeactivated(serviceName));
  if (isDocumentKey(request.pixKeyType)) {
    if (request.pixKeyType !== recipient.documentType) throw new InvalidRequestError(messages.recipientKeyTypeMismatch);
    if (request.pixKey !== recipient.document) throw new NotAllowedError(messages.recipientKeyMismatch);
  }
  return {
    holder: { name: recipient.legalName, document: recipient.document, documentType: recipient.documentType },
    recipientId: recipient.id,
    thirdParty: true,
  };
}

function assertKeyTypeAllowed(account: Account, type: PixKeyType): void {
  if (!account.allowedPixKeyTypes.includes(type)) throw new NotAllowedError(messages.pixKeyTypeNotAllowed(type));
}
