import { describe, expect, it } from 'vitest';
import type { Account } from '../../src/accounts/model.js';
import { DEFAULT_FEES, DEFAULT_LIMITS, DEFAULT_RECIPIENT_LIMIT } from '../../src/config.js';
import { InvalidRequestError, InvalidStateError, NotAllowedError, NotFoundError, type DomainError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { PIX_KEY_TYPES, type PixKeyType } from '../../src/pix/pixKeys.js';
import { resolveDestination, type DestinationRequest, type RecipientForWithdrawal } from '../../src/withdrawals/destination.js';

const SERVICE = 'Pagamentos Exemplo';
const HOLDER_CPF = '52998224725';
const HOLDER_CNPJ = '11222333000181';
const OTHER_CPF = '39053344705';
const OTHER_CNPJ = '11444777000161';
const RECIPIENT_ID = 'a1b2c3d4e5f6a1b2c3d4e5f6';
const OTHER_RECIPIENT_ID = 'ffffffffffffffffffffffff';

const account = (overrides: Partial<Account> = {}): Account => ({
  id: '0190f0a0-0000-7000-8000-000000000001',
  name: 'Loja Teste',
  email: 'loja@example.com',
  emailVerified: true,
  city: 'Curitiba',
  responsible: { name: 'Maria Responsável', cpf: HOLDER_CPF },
  company: { legalName: 'Loja Teste LTDA', cnpj: HOLDER_CNPJ },
  kycStatus: 'approved',
  blocked: false,
  withdrawalMode: 'automatic',
  ipAllowlist: [],
  allowedPixKeyTypes: [...PIX_KEY_TYPES],
  recipientLimit: DEFAULT_RECIPIENT_LIMIT,
  limits: { ...DEFAULT_LIMITS },
  fees: DEFAULT_FEES,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:00:00Z'),
  ...overrides,
});

const onlyTypes = (...types: PixKeyType[]) => account({ allowedPixKeyTypes: types });

const recipient = (overrides: Partial<RecipientForWithdrawal> = {}): RecipientForWithdrawal => ({
  id: RECIPIENT_ID,
  status: 'active',
  legalName: 'Fornecedor Terceiro',
  document: OTHER_CPF,
  documentType: 'cpf',
  ...overrides,
});

const cnpjRecipient = () => recipient({ legalName: 'Fornecedor Terceiro LTDA', document: OTHER_CNPJ, documentType: 'cnpj' });

const toHolder = (pixKey: string, pixKeyType: PixKeyType, recipientId?: string | null): DestinationRequest => ({ pixKey, pixKeyType, recipientId });
const toRecipient = (pixKey: string, pixKeyType: PixKeyType, recipientId = RECIPIENT_ID): DestinationRequest => ({ pixKey, pixKeyType, recipientId });

/** Calls `run`, which must throw exactly `kind` (not a sibling or subclass) with `message`. */
function expectRefusal(run: () => unknown, kind: new (message: string) => DomainError, message: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected a refusal').toBeInstanceOf(kind);
  if (!(thrown instanceof Error)) return;
  expect(thrown.constructor).toBe(kind);
  expect(thrown.message).toBe(message);
}

describe('Mode 1 (no recipientId): only the holder', () => {
  it("a cpf key equal to the responsible's CPF goes to the responsible", () => {
    expect(resolveDestination(account(), toHolder(HOLDER_CPF, 'cpf'), undefined, SERVICE)).toEqual({
      holder: { name: 'Maria Responsável', document: HOLDER_CPF, documentType: 'cpf' },
      thirdParty: false,
      recipientId: null,
    });
  });

  it('a null recipientId is Mode 1 too', () => {
    expect(resolveDestination(account(), toHolder(HOLDER_CPF, 'cpf', null), recipient(), SERVICE)).toEqual({
      holder: { name: 'Maria Responsável', document: HOLDER_CPF, documentType: 'cpf' },
      thirdParty: false,
      recipientId: null,
    });
  });

  it('another CPF is refused', () => {
    expectRefusal(() => resolveDestination(account(), toHolder(OTHER_CPF, 'cpf'), undefined, SERVICE), NotAllowedError, messages.holderCpfOnly);
  });

  it("without recipientId a recipient's CPF is refused: Mode 1 ignores the recipient", () => {
    expectRefusal(() => resolveDestination(account(), toHolder(OTHER_CPF, 'cpf'), recipient(), SERVICE), NotAllowedError, messages.holderCpfOnly);
  });

  it("a cnpj key equal to the company's CNPJ goes to the company", () => {
    expect(resolveDestination(account(), toHolder(HOLDER_CNPJ, 'cnpj'), undefined, SERVICE)).toEqual({
      holder: { name: 'Loja Teste LTDA', document: HOLDER_CNPJ, documentType: 'cnpj' },
      thirdParty: false,
      recipientId: null,
    });
  });

  it('another CNPJ is refused', () => {
    expectRefusal(() => resolveDestination(account(), toHolder(OTHER_CNPJ, 'cnpj'), undefined, SERVICE), NotAllowedError, messages.holderCnpjOnly);
  });

  it('a cnpj key is refused for an account without a company', () => {
    expectRefusal(
      () => resolveDestination(account({ company: null }), toHolder(HOLDER_CNPJ, 'cnpj'), undefined, SERVICE),
      NotAllowedError,
      messages.holderCnpjOnly,
    );
  });

  it("the responsible's CPF as a cnpj key is refused", () => {
    expectRefusal(() => resolveDestination(account(), toHolder(HOLDER_CPF, 'cnpj'), undefined, SERVICE), NotAllowedError, messages.holderCnpjOnly);
  });

  it.each([
    ['email', 'maria@example.com'],
    ['phone', '+5511987654321'],
    ['evp', '123e4567-e12b-12d1-a456-426655440000'],
  ] as const)('an %s key without recipientId needs an authorized recipient', (type, key) => {
    expectRefusal(() => resolveDestination(account(), toHolder(key, type), undefined, SERVICE), InvalidRequestError, messages.thirdPartyKeyNeedsRecipient);
  });

  it.each([
    ['cpf', HOLDER_CPF, 'cnpj'],
    ['cnpj', HOLDER_CNPJ, 'cpf'],
  ] as const)('a %s key of the holder is refused when the account does not allow that type', (type, key, other) => {
    expectRefusal(() => resolveDestination(onlyTypes(other), toHolder(key, type), undefined, SERVICE), NotAllowedError, messages.pixKeyTypeNotAllowed(type));
  });

  it('the allowed key type is checked before the CPF (both rules broken → the type)', () => {
    expectRefusal(
      () => resolveDestination(onlyTypes('cnpj'), toHolder(OTHER_CPF, 'cpf'), undefined, SERVICE),
      NotAllowedError,
      "Tipo de chave PIX 'cpf' não autorizado para esta conta.",
    );
  });

  it('the allowed key type is checked before the CNPJ and the company (both rules broken → the type)', () => {
    expectRefusal(
      () => resolveDestination(account({ company: null, allowedPixKeyTypes: ['cpf'] }), toHolder(OTHER_CNPJ, 'cnpj'), undefined, SERVICE),
      NotAllowedError,
      messages.pixKeyTypeNotAllowed('cnpj'),
    );
  });

  it('a third-party key is refused as needing a recipient before its type is checked', () => {
    expectRefusal(
      () => resolveDestination(onlyTypes('cpf'), toHolder('maria@example.com', 'email'), undefined, SERVICE),
      InvalidRequestError,
      messages.thirdPartyKeyNeedsRecipient,
    );
  });
});

describe('Mode 2 (recipientId): an active recipient of the account', () => {
  it('an email key goes to the active recipient as a third party', () => {
    expect(resolveDestination(account(), toRecipient('fornecedor@example.com', 'email'), recipient(), SERVICE)).toEqual({
      holder: { name: 'Fornecedor Terceiro', document: OTHER_CPF, documentType: 'cpf' },
      thirdParty: true,
      recipientId: RECIPIENT_ID,
    });
  });

  it("a cpf key equal to the recipient's document goes to the recipient", () => {
    expect(resolveDestination(account(), toRecipient(OTHER_CPF, 'cpf'), recipient(), SERVICE)).toEqual({
      holder: { name: 'Fornecedor Terceiro', document: OTHER_CPF, documentType: 'cpf' },
      thirdParty: true,
      recipientId: RECIPIENT_ID,
    });
  });

  it("a cnpj key equal to a company recipient's document goes to it", () => {
    expect(resolveDestination(account(), toRecipient(OTHER_CNPJ, 'cnpj'), cnpjRecipient(), SERVICE)).toEqual({
      holder: { name: 'Fornecedor Terceiro LTDA', document: OTHER_CNPJ, documentType: 'cnpj' },
      thirdParty: true,
      recipientId: RECIPIENT_ID,
    });
  });

  it('an unknown recipient is not found', () => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient('fornecedor@example.com', 'email'), undefined, SERVICE),
      NotFoundError,
      messages.recipientNotFound,
    );
  });

  it.each(['pending_review', 'rejected', 'removed'] as const)('a %s recipient is not found', (status) => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient('fornecedor@example.com', 'email'), recipient({ status }), SERVICE),
      NotFoundError,
      messages.recipientNotFound,
    );
  });

  it('a recipient whose id is not the requested one is not found', () => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient('fornecedor@example.com', 'email', OTHER_RECIPIENT_ID), recipient(), SERVICE),
      NotFoundError,
      messages.recipientNotFound,
    );
  });

  it('a deactivated recipient is refused naming the service', () => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient('fornecedor@example.com', 'email'), recipient({ status: 'deactivated' }), SERVICE),
      InvalidStateError,
      'Destinatário desativado pelo time Pagamentos Exemplo. Saque cancelado.',
    );
  });

  it('a cpf key for a cnpj recipient is a key type mismatch', () => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient(OTHER_CPF, 'cpf'), cnpjRecipient(), SERVICE),
      InvalidRequestError,
      messages.recipientKeyTypeMismatch,
    );
  });

  it('a cnpj key for a cpf recipient is a key type mismatch', () => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient(OTHER_CNPJ, 'cnpj'), recipient(), SERVICE),
      InvalidRequestError,
      messages.recipientKeyTypeMismatch,
    );
  });

  it("a cpf key that is not the recipient's document is refused", () => {
    expectRefusal(() => resolveDestination(account(), toRecipient(HOLDER_CPF, 'cpf'), recipient(), SERVICE), NotAllowedError, messages.recipientKeyMismatch);
  });

  it("a cnpj key that is not the recipient's document is refused", () => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient(HOLDER_CNPJ, 'cnpj'), cnpjRecipient(), SERVICE),
      NotAllowedError,
      messages.recipientKeyMismatch,
    );
  });

  it.each([
    ['email', 'fornecedor@example.com'],
    ['phone', '+5511987654321'],
    ['evp', '123e4567-e12b-12d1-a456-426655440000'],
    ['cpf', OTHER_CPF],
  ] as const)('an %s key is refused when the account does not allow that type', (type, key) => {
    const allowed = PIX_KEY_TYPES.filter((candidate) => candidate !== type);
    expectRefusal(
      () => resolveDestination(onlyTypes(...allowed), toRecipient(key, type), recipient(), SERVICE),
      NotAllowedError,
      messages.pixKeyTypeNotAllowed(type),
    );
  });

  it('the allowed key type is checked before the recipient exists', () => {
    expectRefusal(
      () => resolveDestination(onlyTypes('cpf'), toRecipient('fornecedor@example.com', 'email'), undefined, SERVICE),
      NotAllowedError,
      "Tipo de chave PIX 'email' não autorizado para esta conta.",
    );
  });

  it('the allowed key type is checked before the recipient is deactivated', () => {
    expectRefusal(
      () => resolveDestination(onlyTypes('cpf'), toRecipient('fornecedor@example.com', 'email'), recipient({ status: 'deactivated' }), SERVICE),
      NotAllowedError,
      messages.pixKeyTypeNotAllowed('email'),
    );
  });

  it('the allowed key type is checked before the document (both rules broken → the type)', () => {
    expectRefusal(
      () => resolveDestination(onlyTypes('email'), toRecipient(HOLDER_CPF, 'cpf'), recipient(), SERVICE),
      NotAllowedError,
      messages.pixKeyTypeNotAllowed('cpf'),
    );
  });

  it('a deactivated recipient is refused before its key is compared', () => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient(HOLDER_CPF, 'cpf'), recipient({ status: 'deactivated' }), SERVICE),
      InvalidStateError,
      messages.recipientDeactivated(SERVICE),
    );
  });

  it('the key type mismatch comes before the document mismatch', () => {
    expectRefusal(
      () => resolveDestination(account(), toRecipient(HOLDER_CPF, 'cpf'), cnpjRecipient(), SERVICE),
      InvalidRequestError,
      messages.recipientKeyTypeMismatch,
    );
  });
});
