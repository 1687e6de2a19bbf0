import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidCpf } from '../../src/pix/documents.js';
import { newId } from '../../src/platform/ids.js';
import { findRecipient } from '../../src/recipients/repository.js';
import { countBy, registerRecipient, reviewRecipient, startNextHour } from '../helpers/api.js';
import { backend, callAt, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { errorOf } from '../helpers/contract.js';

/** Spec §Recipient, §Recipient states, §POST/GET /v1/recipients, §Errors; DESIGN.md §5 and §6. Texts quoted to the character. */
const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdef0123456789'; // test/helpers/gateway.ts
const LEGAL_NAME_REQUIRED = 'legalName é obrigatório (mínimo 2 caracteres).';
const LEGAL_NAME_TOO_LONG = 'legalName deve ter no máximo 120 caracteres.';
const DOCUMENT_REQUIRED = 'document é obrigatório.';
const documentTypeInvalid = (received: string) => `documentType deve ser 'cpf' ou 'cnpj'. Recebido: '${received}'.`;
const DOCUMENT_CHARACTERS = 'document deve conter apenas dígitos, pontos, traços e barras.';
const CPF_INVALID = 'document não é um CPF válido.';
const CNPJ_INVALID = 'document não é um CNPJ válido.';
const PIX_KEY_REQUIRED = 'pixKey obrigatória.';
const PIX_KEY_TOO_LONG = 'pixKey deve ter no máximo 150 caracteres.';
const pixKeyTypeInvalid = (received: string) => `pixKeyType deve ser 'cpf', 'cnpj', 'email', 'phone' ou 'evp'. Recebido: '${received}'.`;
const KEY_DOCUMENT_MISMATCH = 'Chave PIX (CPF/CNPJ) não corresponde ao documento informado.';
const LABEL_TOO_LONG = 'label deve ter no máximo 80 caracteres.';
const limitReached = (limit: number) => `Limite de ${limit} destinatários atingido. Remova um inativo ou fale com o suporte.`;
const RATE_LIMITED = 'Limite de requisições atingido.';
const pendingNote = (service: string) => `Destinatário em análise pelo time ${service}. Saques para ele só serão liberados após a aprovação.`;
const activeNote = (service: string) => `Destinatário já aprovado pelo time ${service}. Saques liberados.`;
const RECIPIENT_ID_INVALID = 'recipientId inválido.';
const RECIPIENT_NOT_FOUND = 'Destinatário autorizado não encontrado.';
const NOT_PENDING_REVIEW = 'Destinatário não está em análise.';
const NOT_ACTIVE = 'Destinatário não está ativo.';

const HOUR = 3_600_000;

// Valid documents (check digits verified below and in test/pix/documents.test.ts).
const CPF = { formatted: '390.533.447-05', digits: '39053344705' };
const OTHER_CPF = { formatted: '529.982.247-25', digits: '52998224725' };
const THIRD_CPF = { formatted: '111.444.777-35', digits: '11144477735' };
const CNPJ = { formatted: '11.222.333/0001-81', digits: '11222333000181' };
const EVP = '123e4567-e89b-12d3-a456-426614174000';

/** CPF check digits (Receita Federal): weights 10..2 then 11..2, remainder of 10·sum by 11, 10 → 0. */
function withCpfCheckDigits(base: string): string {
  let digits = base;
  for (let round = 0; round < 2; round++) {
    const sum = [...digits].reduce((total, digit, index) => total + Number(digit) * (digits.length + 1 - index), 0);
    digits += String(((sum * 10) % 11) % 10);
  }
  return digits;
}
/** The n-th of a series of distinct valid CPFs, formatted. */
function generatedCpf(n: number): string {
  const digits = withCpfCheckDigits(String(200_000_000 + n * 1_013));
  return `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}-${digits.slice(9)}`;
}

const expectedRecipientId = (type: 'cpf' | 'cnpj', digits: string, secret = TEST_SECRET_KEY) =>
  createHmac('sha256', secret).update(`${type}:${digits}`).digest('hex').slice(0, 24);

const recipientBody = (overrides: Record<string, unknown> = {}) => ({
  legalName: 'Fornecedora Silva ME',
  document: CPF.formatted,
  documentType: 'cpf',
  pixKey: 'financeiro@fornecedora.com.br',
  pixKeyType: 'email',
  label: 'Fornecedora',
  ...overrides,
});

let gateway: Gateway;
let peerUrl: string;
beforeAll(async () => {
  gateway = await startGateway();
  peerUrl = (await gateway.startPeer()).url;
});
afterAll(() => gateway.close());

const listApproved = (merchant: Merchant) => gateway.call('GET', '/v1/recipients', { key: merchant.apiKey });
/** The operator's view of one recipient (any status). */
async function operatorView(merchant: Merchant, recipientId: string) {
  for (const status of ['pending_review', 'active', 'rejected', 'removed', 'deactivated']) {
    const reply = await gateway.admin('GET', `/admin/v1/recipients?status=${status}&accountId=${merchant.accountId}`);
    const found = reply.body.recipients.find((item: { recipientId: string }) => item.recipientId === recipientId);
    if (found) return found;
  }
  return undefined;
}

describe('test documents', () => {
  it('are valid, and the generator reproduces known CPFs', () => {
    for (const cpf of [CPF, OTHER_CPF, THIRD_CPF]) {
      expect(isValidCpf(cpf.digits)).toBe(true);
      expect(withCpfCheckDigits(cpf.digits.slice(0, 9))).toBe(cpf.digits);
    }
    const generated = Array.from({ length: 40 }, (_, n) => generatedCpf(n).replace(/\D/g, ''));
    expect(generated.every(isValidCpf)).toBe(true);
    expect(new Set(generated).size).toBe(40);
  });
});

describe('POST /v1/recipients validation (one row per rule, in reporting order)', () => {
  let merchant: Merchant;
  beforeAll(async () => {
    merchant = await gateway.createMerchant();
  });

  const rows: [string, unknown, string][] = [
    ['legalName missing', recipientBody({ legalName: undefined }), LEGAL_NAME_REQUIRED],
    ['legalName not a string', recipientBody({ legalName: 42 }), LEGAL_NAME_REQUIRED],
    ['legalName blank', recipientBody({ legalName: '   ' }), LEGAL_NAME_REQUIRED],
    ['legalName of one character once trimmed', recipientBody({ legalName: '  A  ' }), LEGAL_NAME_REQUIRED],
    ['legalName over 120', recipientBody({ legalName: 'a'.repeat(121) }), LEGAL_NAME_TOO_LONG],
    ['legalName comes before the document rules', { legalName: 'A', documentType: 'rg' }, LEGAL_NAME_REQUIRED],
    ['document missing', recipientBody({ document: undefined }), DOCUMENT_REQUIRED],
    ['document not a string', recipientBody({ document: 39053344705 }), DOCUMENT_REQUIRED],
    ['document blank', recipientBody({ document: '  ' }), DOCUMENT_REQUIRED],
    ['a missing document comes before documentType', recipientBody({ document: undefined, documentType: 'rg' }), DOCUMENT_REQUIRED],
    ['documentType missing', recipientBody({ documentType: undefined }), documentTypeInvalid('')],
    ['documentType invalid', recipientBody({ documentType: 'rg' }), documentTypeInvalid('rg')],
    ['documentType echoed as received', recipientBody({ documentType: ' RG ' }), documentTypeInvalid(' RG ')],
    ['documentType not a string', recipientBody({ documentType: 11 }), documentTypeInvalid('11')],
    ['documentType comes before the document characters', recipientBody({ document: 'abc', documentType: 'passport' }), documentTypeInvalid('passport')],
    ['document with a letter', recipientBody({ document: '390.533.447-0X' }), DOCUMENT_CHARACTERS],
    ['cpf with 10 digits', recipientBody({ document: '390.533.447-0' }), 'document deve ter 11 dígitos para cpf. Recebido: 10.'],
    ['cpf with 14 digits', recipientBody({ document: CNPJ.formatted }), 'document deve ter 11 dígitos para cpf. Recebido: 14.'],
    ['cnpj with 11 digits', recipientBody({ document: CPF.formatted, documentType: 'CNPJ' }), 'document deve ter 14 dígitos para cnpj. Recebido: 11.'],
    ['cpf check digits wrong', recipientBody({ document: '390.533.447-06' }), CPF_INVALID],
    ['cpf of repeated digits', recipientBody({ document: '111.111.111-11' }), CPF_INVALID],
    ['cnpj check digits wrong', recipientBody({ document: '11.222.333/0001-82', documentType: 'cnpj' }), CNPJ_INVALID],
    ['document rules come before pixKey rules', recipientBody({ document: '123', pixKey: undefined }), 'document deve ter 11 dígitos para cpf. Recebido: 3.'],
    ['pixKey missing', recipientBody({ pixKey: undefined }), PIX_KEY_REQUIRED],
    ['pixKey blank', recipientBody({ pixKey: '   ' }), PIX_KEY_REQUIRED],
    ['pixKey not a string', recipientBody({ pixKey: 42 }), PIX_KEY_REQUIRED],
    ['pixKey over 150 (as sent, before its format)', recipientBody({ pixKey: 'financeiro@fornecedora.com.br'.padStart(151) }), PIX_KEY_TOO_LONG],
    ['pixKey rules come before pixKeyType', recipientBody({ pixKey: undefined, pixKeyType: 'iban' }), PIX_KEY_REQUIRED],
    ['pixKeyType missing', recipientBody({ pixKeyType: undefined }), pixKeyTypeInvalid('')],
    ['pixKeyType invalid', recipientBody({ pixKeyType: 'iban' }), pixKeyTypeInvalid('iban')],
    ['pixKeyType echoed as received', recipientBody({ pixKeyType: 'E-mail ' }), pixKeyTypeInvalid('E-mail ')],
    ['cpf key that is not a CPF', recipientBody({ pixKey: '390.533.447-06', pixKeyType: 'cpf' }), 'pixKey não é um CPF válido.'],
    ['cnpj key that is not a CNPJ', recipientBody({ pixKey: '11222333000182', pixKeyType: 'cnpj' }), 'pixKey não é um CNPJ válido.'],
    ['email key invalid', recipientBody({ pixKey: 'financeiro@', pixKeyType: 'email' }), 'pixKey não é um e-mail válido (máximo 77 caracteres).'],
    ['phone key without +55', recipientBody({ pixKey: '11987654321', pixKeyType: 'phone' }), 'pixKey deve ser um telefone no formato +55DDDNÚMERO.'],
    ['evp key not a UUID', recipientBody({ pixKey: 'chave-aleatoria', pixKeyType: 'evp' }), 'pixKey deve ser uma chave aleatória (UUID) válida.'],
    ['the key format comes before the key/document match', recipientBody({ pixKey: '529.982.247-26', pixKeyType: 'cpf' }), 'pixKey não é um CPF válido.'],
    ['cpf key of another CPF', recipientBody({ pixKey: OTHER_CPF.formatted, pixKeyType: 'cpf' }), KEY_DOCUMENT_MISMATCH],
    [
      'cpf key for a cnpj document',
      recipientBody({ document: CNPJ.formatted, documentType: 'cnpj', pixKey: OTHER_CPF.digits, pixKeyType: 'cpf' }),
      KEY_DOCUMENT_MISMATCH,
    ],
    ['cnpj key for a cpf document', recipientBody({ pixKey: CNPJ.digits, pixKeyType: 'cnpj' }), KEY_DOCUMENT_MISMATCH],
    ['label over 80', recipientBody({ label: 'l'.repeat(81) }), LABEL_TOO_LONG],
    ['label not a string', recipientBody({ label: 7 }), LABEL_TOO_LONG],
    ['the key/document match comes before label', recipientBody({ pixKey: OTHER_CPF.digits, pixKeyType: 'cpf', label: 'l'.repeat(81) }), KEY_DOCUMENT_MISMATCH],
    ['body not an object', [recipientBody()], 'Corpo da requisição deve ser um objeto JSON.'],
  ];

  it.each(rows)('%s → 400', async (_name, body, message) => {
    const reply = await registerRecipient(gateway, merchant, body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: message });
  });

  it('accepts the limits themselves: legalName of 2 and 120, pixKey of 150, label of 80 characters', async () => {
    const limits = await gateway.createMerchant();
    for (const [index, legalName] of ['Jo', 'n'.repeat(120)].entries()) {
      const pixKey = 'financeiro@fornecedora.com.br'.padStart(150);
      const reply = await registerRecipient(gateway, limits, recipientBody({ legalName, document: generatedCpf(index), pixKey, label: 'l'.repeat(80) }));
      expect(reply.status).toBe(201);
    }
  });

  it('creates nothing when validation fails', async () => {
    for (const status of ['pending_review', 'active']) {
      const listed = await gateway.admin('GET', `/admin/v1/recipients?status=${status}&accountId=${merchant.accountId}`);
      expect(listed.body).toEqual({ recipients: [], count: 0 });
    }
  });

  it('needs an API key like every /v1 call', async () => {
    expect(await gateway.call('POST', '/v1/recipients', { key: null, body: recipientBody() })).toMatchObject({
      status: 401,
      body: { error: 'API key obrigatória. Use: Authorization: Bearer <key>' },
    });
    expect((await gateway.call('GET', '/v1/recipients', { key: null })).status).toBe(401);
  });
});

describe('POST /v1/recipients registration', () => {
  it('answers 201 pending_review with the note, then 200 with the same id; a resubmission under review takes the new data', async () => {
    const merchant = await gateway.createMerchant();
    const recipientId = expectedRecipientId('cpf', CPF.digits);
    const first = await registerRecipient(gateway, merchant, recipientBody());
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ recipientId, status: 'pending_review', note: pendingNote('SVC') });

    const again = await registerRecipient(
      gateway,
      merchant,
      recipientBody({ document: CPF.digits, legalName: 'Fornecedora Silva LTDA', pixKey: '+5511987654321', pixKeyType: 'phone', label: 'Nova' }),
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);

    const view = await operatorView(merchant, recipientId);
    expect(view).toEqual({
      accountId: merchant.accountId,
      recipientId,
      status: 'pending_review',
      legalName: 'Fornecedora Silva LTDA',
      document: CPF.digits,
      documentType: 'cpf',
      pixKey: '+5511987654321',
      pixKeyType: 'phone',
      label: 'Nova',
      approvedLabel: null,
      approvedAt: null,
      reason: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(view!.updatedAt).toBeGreaterThanOrEqual(view!.createdAt);
    // Under review: not listed, not usable.
    expect((await listApproved(merchant)).body).toEqual({ recipients: [], count: 0, hasMore: false });
  });

  it.each([
    [
      'document type and cpf key with case, spaces and punctuation',
      { documentType: ' CPF ', document: ` ${THIRD_CPF.formatted} `, pixKeyType: ' Cpf ', pixKey: ` ${THIRD_CPF.formatted} ` },
      { documentType: 'cpf', document: THIRD_CPF.digits, pixKeyType: 'cpf', pixKey: THIRD_CPF.digits },
    ],
    [
      'cnpj document and key',
      { documentType: 'CNPJ', document: CNPJ.formatted, pixKeyType: 'cnpj', pixKey: CNPJ.formatted },
      { documentType: 'cnpj', document: CNPJ.digits, pixKeyType: 'cnpj', pixKey: CNPJ.digits },
    ],
    [
      'email key type and key',
      { pixKeyType: ' Email ', pixKey: ' Financeiro@Fornecedora.COM.br ' },
      { pixKeyType: 'email', pixKey: 'financeiro@fornecedora.com.br' },
    ],
    ['formatted phone key', { pixKeyType: 'PHONE', pixKey: '+55 (11) 98765-4321' }, { pixKeyType: 'phone', pixKey: '+5511987654321' }],
    ['evp key in capitals', { pixKeyType: 'evp', pixKey: EVP.toUpperCase() }, { pixKeyType: 'evp', pixKey: EVP }],
    ['legalName and label trimmed', { legalName: '  Fornecedora  ', label: '  Apelido  ' }, { legalName: 'Fornecedora', label: 'Apelido' }],
    ['blank label is none', { label: '   ' }, { label: null }],
    ['null label is none', { label: null }, { label: null }],
  ])('normalizes the %s', async (_name, input, stored) => {
    const merchant = await gateway.createMerchant();
    const reply = await registerRecipient(gateway, merchant, recipientBody(input));
    expect(reply.status).toBe(201);
    const documentType = (stored as { documentType?: 'cpf' | 'cnpj' }).documentType ?? 'cpf';
    const digits = (stored as { document?: string }).document ?? CPF.digits;
    expect(reply.body.recipientId).toBe(expectedRecipientId(documentType, digits));
    expect(await operatorView(merchant, reply.body.recipientId)).toMatchObject(stored);
  });

  it('derives recipientId as the first 24 hex of HMAC-SHA256(SECRET_KEY, "<type>:<digits>"): same document, same id, in every account', async () => {
    expect(gateway.services.config.secretKey).toBe(TEST_SECRET_KEY);
    const [a, b] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const id = expectedRecipientId('cpf', CPF.digits);
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    // Keyed: not a plain hash of the document, which anyone could recompute for every CPF.
    expect(id).not.toBe(createHash('sha256').update(`cpf:${CPF.digits}`).digest('hex').slice(0, 24));

    expect(await registerRecipient(gateway, a, recipientBody())).toMatchObject({ status: 201, body: { recipientId: id } });
    expect(await registerRecipient(gateway, a, recipientBody({ document: ` ${CPF.digits.replace(/(\d{3})(?=\d)/g, '$1 ')} ` }))).toMatchObject({
      status: 200,
      body: { recipientId: id },
    });
    expect(await registerRecipient(gateway, b, recipientBody())).toMatchObject({ status: 201, body: { recipientId: id } });
    const cnpj = await registerRecipient(gateway, a, recipientBody({ document: CNPJ.formatted, documentType: 'cnpj' }));
    expect(cnpj).toMatchObject({ status: 201, body: { recipientId: expectedRecipientId('cnpj', CNPJ.digits) } });
  });

  it('gives other ids under another SECRET_KEY, and names SERVICE_NAME in the note', async () => {
    const otherSecret = 'another-secret-key-abcdefghijklmnopqrstuvwxyz';
    const peer = await gateway.startPeer({ SECRET_KEY: otherSecret, SERVICE_NAME: 'PAGX' });
    try {
      const merchant = await gateway.createMerchant();
      const reply = await callAt(peer.url, 'POST', '/v1/recipients', { key: merchant.apiKey, body: recipientBody() });
      expect(reply.status).toBe(201);
      expect(reply.body).toEqual({ recipientId: expectedRecipientId('cpf', CPF.digits, otherSecret), status: 'pending_review', note: pendingNote('PAGX') });
      expect(reply.body.recipientId).not.toBe(expectedRecipientId('cpf', CPF.digits));
    } finally {
      await peer.close();
    }
  });
});

describe('review and GET /v1/recipients', () => {
  it('lists approved recipients only, newest approval first: masked document, alias of the approval, approvedAt, count', async () => {
    const merchant = await gateway.createMerchant();
    const person = await registerRecipient(gateway, merchant, recipientBody());
    const company = await registerRecipient(
      gateway,
      merchant,
      recipientBody({ legalName: 'Transportadora Rápida LTDA', document: CNPJ.formatted, documentType: 'cnpj', label: 'Transportadora' }),
    );
    const unnamed = await registerRecipient(gateway, merchant, recipientBody({ legalName: 'Sem Apelido', document: THIRD_CPF.formatted, label: undefined }));
    await registerRecipient(gateway, merchant, recipientBody({ document: OTHER_CPF.formatted })); // stays under review

    const before = gateway.clock.now().getTime();
    const approved = await reviewRecipient(gateway, merchant, person.body.recipientId, 'approve', { label: 'Fornecedora Principal' });
    const after = gateway.clock.now().getTime();
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      recipientId: person.body.recipientId,
      status: 'active',
      label: 'Fornecedora',
      approvedLabel: 'Fornecedora Principal',
    });
    expect(approved.body.approvedAt).toBeGreaterThanOrEqual(before);
    expect(approved.body.approvedAt).toBeLessThanOrEqual(after);
    expect(approved.body.updatedAt).toBe(approved.body.approvedAt);

    expect((await listApproved(merchant)).body).toEqual({
      recipients: [
        {
          recipientId: person.body.recipientId,
          legalName: 'Fornecedora Silva ME',
          documentType: 'cpf',
          documentMasked: '***.533.447-**',
          label: 'Fornecedora Principal',
          approvedAt: approved.body.approvedAt,
        },
      ],
      count: 1,
      hasMore: false,
    });

    gateway.clock.advance(60_000);
    const companyApproved = await reviewRecipient(gateway, merchant, company.body.recipientId, 'approve'); // no body: the submitted label
    expect(companyApproved).toMatchObject({ status: 200, body: { status: 'active', approvedLabel: 'Transportadora' } });
    gateway.clock.advance(60_000);
    const unnamedApproved = await reviewRecipient(gateway, merchant, unnamed.body.recipientId, 'approve', {});
    expect(unnamedApproved).toMatchObject({ status: 200, body: { status: 'active', label: null, approvedLabel: null } });

    const list = await listApproved(merchant);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      recipients: [
        {
          recipientId: unnamed.body.recipientId,
          legalName: 'Sem Apelido',
          documentType: 'cpf',
          documentMasked: '***.444.777-**',
          label: null,
          approvedAt: unnamedApproved.body.approvedAt,
        },
        {
          recipientId: company.body.recipientId,
          legalName: 'Transportadora Rápida LTDA',
          documentType: 'cnpj',
          documentMasked: '**.222.333/0001-**',
          label: 'Transportadora',
          approvedAt: companyApproved.body.approvedAt,
        },
        {
          recipientId: person.body.recipientId,
          legalName: 'Fornecedora Silva ME',
          documentType: 'cpf',
          documentMasked: '***.533.447-**',
          label: 'Fornecedora Principal',
          approvedAt: approved.body.approvedAt,
        },
      ],
      count: 3,
      hasMore: false,
    });
    expect(JSON.stringify(list.body)).not.toContain(CPF.digits);
  });

  it('an active recipient resubmitted answers 200 active and keeps its approved data', async () => {
    const merchant = await gateway.createMerchant();
    const { body } = await registerRecipient(gateway, merchant, recipientBody());
    await reviewRecipient(gateway, merchant, body.recipientId, 'approve', { label: 'Aprovada' });
    const listBefore = (await listApproved(merchant)).body;
    const viewBefore = await operatorView(merchant, body.recipientId);

    const again = await registerRecipient(gateway, merchant, recipientBody({ legalName: 'Outro Nome', pixKey: CPF.digits, pixKeyType: 'cpf', label: 'Outro' }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ recipientId: body.recipientId, status: 'active', note: activeNote('SVC') });
    expect((await listApproved(merchant)).body).toEqual(listBefore);
    expect(await operatorView(merchant, body.recipientId)).toEqual(viewBefore);
  });

  it('a rejected recipient resubmitted goes back to review with the new data (200)', async () => {
    const merchant = await gateway.createMerchant();
    const { body } = await registerRecipient(gateway, merchant, recipientBody());
    const rejected = await reviewRecipient(gateway, merchant, body.recipientId, 'reject', { reason: 'Documento divergente' });
    expect(rejected).toMatchObject({
      status: 200,
      body: { recipientId: body.recipientId, status: 'rejected', reason: 'Documento divergente', approvedAt: null },
    });
    expect((await listApproved(merchant)).body).toEqual({ recipients: [], count: 0, hasMore: false });

    const again = await registerRecipient(
      gateway,
      merchant,
      recipientBody({ legalName: 'Fornecedora Corrigida', pixKey: EVP, pixKeyType: 'evp', label: 'Corrigida' }),
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ recipientId: body.recipientId, status: 'pending_review', note: pendingNote('SVC') });
    expect(await operatorView(merchant, body.recipientId)).toMatchObject({
      status: 'pending_review',
      legalName: 'Fornecedora Corrigida',
      pixKey: EVP,
      pixKeyType: 'evp',
      label: 'Corrigida',
      reason: null,
    });
  });

  it('a deactivated recipient is no longer listed; resubmitting it starts a new review (200)', async () => {
    const merchant = await gateway.createMerchant();
    const kept = await registerRecipient(gateway, merchant, recipientBody({ document: OTHER_CPF.formatted }));
    const { body } = await registerRecipient(gateway, merchant, recipientBody());
    await reviewRecipient(gateway, merchant, kept.body.recipientId, 'approve');
    await reviewRecipient(gateway, merchant, body.recipientId, 'approve', { label: 'Aprovada' });
    expect((await listApproved(merchant)).body.count).toBe(2);

    const deactivated = await reviewRecipient(gateway, merchant, body.recipientId, 'deactivate', { reason: 'Compliance' });
    expect(deactivated).toMatchObject({ status: 200, body: { status: 'deactivated', reason: 'Compliance', approvedLabel: 'Aprovada' } });
    const list = await listApproved(merchant);
    expect(list.body.count).toBe(1);
    expect(list.body.recipients.map((item: { recipientId: string }) => item.recipientId)).toEqual([kept.body.recipientId]);
    expect(await findRecipient(gateway.database.db, merchant.accountId, body.recipientId)).toMatchObject({ status: 'deactivated' });

    const again = await registerRecipient(gateway, merchant, recipientBody({ legalName: 'Nova Análise' }));
    expect(again).toMatchObject({ status: 200, body: { recipientId: body.recipientId, status: 'pending_review', note: pendingNote('SVC') } });
    expect(await operatorView(merchant, body.recipientId)).toMatchObject({
      status: 'pending_review',
      legalName: 'Nova Análise',
      approvedLabel: null,
      approvedAt: null,
      reason: null,
    });
  });

  it('a removed recipient resubmitted goes back to review (200)', async () => {
    const merchant = await gateway.createMerchant();
    const { body } = await registerRecipient(gateway, merchant, recipientBody());
    // No API removes a recipient yet (DESIGN.md leaves it to the dashboard); the state is set directly.
    await gateway.database.db
      .updateTable('recipients')
      .set({ status: 'removed' })
      .where('accountId', '=', merchant.accountId)
      .where('id', '=', body.recipientId)
      .execute();
    const again = await registerRecipient(gateway, merchant, recipientBody({ label: 'De volta' }));
    expect(again).toMatchObject({ status: 200, body: { recipientId: body.recipientId, status: 'pending_review' } });
    expect(await operatorView(merchant, body.recipientId)).toMatchObject({ status: 'pending_review', label: 'De volta' });
  });
});

describe('ceiling of active plus under-review recipients', () => {
  it('defaults to 10 recipients and 30 registrations per hour', async () => {
    const merchant = await gateway.createMerchant();
    const account = await gateway.admin('GET', `/admin/v1/accounts/${merchant.accountId}`);
    expect(account.body.recipientLimit).toBe(10);
    expect(account.body.limits.recipientsPerHour).toBe(30);
  });

  it("answers 422 naming the account's ceiling; resubmissions still answer; rejected and deactivated ones free a slot", async () => {
    const merchant = await gateway.createMerchant({ recipientLimit: 2 });
    const first = await registerRecipient(gateway, merchant, recipientBody({ document: generatedCpf(100) }));
    const second = await registerRecipient(gateway, merchant, recipientBody({ document: generatedCpf(101) }));
    expect([first.status, second.status]).toEqual([201, 201]);

    const third = recipientBody({ document: generatedCpf(102) });
    expect(await registerRecipient(gateway, merchant, third)).toMatchObject({ status: 422, body: { error: limitReached(2) } });
    const thirdId = expectedRecipientId('cpf', generatedCpf(102).replace(/\D/g, ''));
    expect(await findRecipient(gateway.database.db, merchant.accountId, thirdId)).toBeUndefined();

    // Resubmitting one that already counts adds nothing.
    expect((await registerRecipient(gateway, merchant, recipientBody({ document: generatedCpf(100) }))).status).toBe(200);
    // Active ones count too.
    await reviewRecipient(gateway, merchant, first.body.recipientId, 'approve');
    expect((await registerRecipient(gateway, merchant, third)).status).toBe(422);
    expect((await registerRecipient(gateway, merchant, recipientBody({ document: generatedCpf(100) }))).body.status).toBe('active');

    await reviewRecipient(gateway, merchant, second.body.recipientId, 'reject');
    expect((await registerRecipient(gateway, merchant, third)).status).toBe(201);
    // Coming back from rejected would add one: refused at the ceiling.
    expect(await registerRecipient(gateway, merchant, recipientBody({ document: generatedCpf(101) }))).toMatchObject({
      status: 422,
      body: { error: limitReached(2) },
    });

    await reviewRecipient(gateway, merchant, first.body.recipientId, 'deactivate');
    expect(await registerRecipient(gateway, merchant, recipientBody({ document: generatedCpf(101) }))).toMatchObject({
      status: 200,
      body: { status: 'pending_review' },
    });
  });

  it('the default ceiling is 10, and the message says so', async () => {
    const merchant = await gateway.createMerchant();
    for (let n = 0; n < 10; n++) expect((await registerRecipient(gateway, merchant, recipientBody({ document: generatedCpf(200 + n) }))).status).toBe(201);
    const eleventh = await registerRecipient(gateway, merchant, recipientBody({ document: generatedCpf(210) }));
    expect(eleventh.status).toBe(422);
    expect(eleventh.body).toEqual({ error: 'Limite de 10 destinatários atingido. Remova um inativo ou fale com o suporte.' });
  });

  it('a ceiling of 0 refuses every new recipient', async () => {
    const merchant = await gateway.createMerchant({ recipientLimit: 0 });
    expect(await registerRecipient(gateway, merchant, recipientBody())).toMatchObject({ status: 422, body: { error: limitReached(0) } });
  });
});

describe('POST /v1/recipients hourly rate limit', () => {
  it('answers 429 past recipientsPerHour, per account; every valid request counts (200 and 422 too), 400s do not; resets at the next UTC hour', async () => {
    const merchant = await gateway.createMerchant({ recipientLimit: 1, limits: { recipientsPerHour: 3 } });
    const other = await gateway.createMerchant({ limits: { recipientsPerHour: 3 } });
    startNextHour(gateway);

    for (let i = 0; i < 3; i++) expect((await registerRecipient(gateway, merchant, recipientBody({ legalName: '' }))).status).toBe(400);
    expect((await registerRecipient(gateway, merchant, recipientBody())).status).toBe(201);
    expect((await registerRecipient(gateway, merchant, recipientBody())).status).toBe(200);
    expect((await registerRecipient(gateway, merchant, recipientBody({ document: OTHER_CPF.formatted }))).status).toBe(422);
    const limited = await registerRecipient(gateway, merchant, recipientBody({ document: THIRD_CPF.formatted }));
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: RATE_LIMITED });
    expect(limited.headers.get('retry-after')).toBeNull();
    expect(await registerRecipient(gateway, merchant, recipientBody())).toMatchObject({ status: 429, body: { error: RATE_LIMITED } });
    // Reading the list is not limited, and another account has its own counter.
    expect((await listApproved(merchant)).status).toBe(200);
    expect((await registerRecipient(gateway, other, recipientBody())).status).toBe(201);

    gateway.clock.advance(HOUR - 2000); // still the same UTC hour
    expect((await registerRecipient(gateway, merchant, recipientBody())).status).toBe(429);
    gateway.clock.advance(1500); // the next UTC hour
    expect(await registerRecipient(gateway, merchant, recipientBody())).toMatchObject({ status: 200, body: { status: 'pending_review' } });
  });
});

describe('tenancy', () => {
  it("merchant B sees none of A's recipients and registers the same document as its own", async () => {
    const [a, b] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const created = await registerRecipient(gateway, a, recipientBody());
    await reviewRecipient(gateway, a, created.body.recipientId, 'approve', { label: 'Da loja A' });

    expect((await listApproved(b)).body).toEqual({ recipients: [], count: 0, hasMore: false });
    expect(await findRecipient(gateway.database.db, b.accountId, created.body.recipientId)).toBeUndefined();
    // The operator acts per account: B has no such recipient.
    expect(await reviewRecipient(gateway, b, created.body.recipientId, 'approve')).toMatchObject({ status: 404, body: { error: RECIPIENT_NOT_FOUND } });

    // Same document: same id, but B's own row under review; A's stays approved.
    expect(await registerRecipient(gateway, b, recipientBody({ legalName: 'Nome na loja B' }))).toMatchObject({
      status: 201,
      body: { recipientId: created.body.recipientId, status: 'pending_review' },
    });
    expect(await reviewRecipient(gateway, b, created.body.recipientId, 'reject')).toMatchObject({
      status: 200,
      body: { accountId: b.accountId, status: 'rejected' },
    });
    expect((await listApproved(a)).body).toMatchObject({
      count: 1,
      recipients: [{ recipientId: created.body.recipientId, legalName: 'Fornecedora Silva ME', label: 'Da loja A' }],
    });
    expect((await listApproved(b)).body).toEqual({ recipients: [], count: 0, hasMore: false });
  });
});

describe('operator API', () => {
  it('lists recipients by status (pending_review by default), of every account or of one, oldest change first', async () => {
    const [a, b] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const a1 = await registerRecipient(gateway, a, recipientBody());
    gateway.clock.advance(1000);
    const a2 = await registerRecipient(gateway, a, recipientBody({ document: CNPJ.formatted, documentType: 'cnpj', legalName: 'Empresa LTDA' }));
    const b1 = await registerRecipient(gateway, b, recipientBody({ document: OTHER_CPF.formatted }));

    const all = await gateway.admin('GET', '/admin/v1/recipients');
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(all.body.recipients.length);
    expect(all.body.recipients.every((item: { status: string }) => item.status === 'pending_review')).toBe(true);
    const mine = all.body.recipients.filter((item: { accountId: string }) => item.accountId === a.accountId || item.accountId === b.accountId);
    expect(mine.map((item: { recipientId: string }) => item.recipientId)).toEqual([a1.body.recipientId, a2.body.recipientId, b1.body.recipientId]);

    const ofA = await gateway.admin('GET', `/admin/v1/recipients?accountId=${a.accountId}`);
    expect(ofA.body.count).toBe(2);
    expect(ofA.body.recipients[1]).toEqual({
      accountId: a.accountId,
      recipientId: a2.body.recipientId,
      status: 'pending_review',
      legalName: 'Empresa LTDA',
      document: CNPJ.digits,
      documentType: 'cnpj',
      pixKey: 'financeiro@fornecedora.com.br',
      pixKeyType: 'email',
      label: 'Fornecedora',
      approvedLabel: null,
      approvedAt: null,
      reason: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });

    expect((await gateway.admin('GET', `/admin/v1/recipients?status=active&accountId=${a.accountId}`)).body).toEqual({ recipients: [], count: 0 });
    await reviewRecipient(gateway, a, a1.body.recipientId, 'approve');
    const active = await gateway.admin('GET', `/admin/v1/recipients?status=active&accountId=${a.accountId}`);
    expect(active.body).toMatchObject({ count: 1, recipients: [{ recipientId: a1.body.recipientId, status: 'active' }] });
  });

  it('refuses transitions from the wrong status (422), unknown recipients (404) and malformed ids (400)', async () => {
    const merchant = await gateway.createMerchant();
    const pending = (await registerRecipient(gateway, merchant, recipientBody())).body.recipientId;
    const active = (await registerRecipient(gateway, merchant, recipientBody({ document: OTHER_CPF.formatted }))).body.recipientId;
    const rejected = (await registerRecipient(gateway, merchant, recipientBody({ document: THIRD_CPF.formatted }))).body.recipientId;
    const deactivated = (await registerRecipient(gateway, merchant, recipientBody({ document: CNPJ.formatted, documentType: 'cnpj' }))).body.recipientId;
    await reviewRecipient(gateway, merchant, active, 'approve');
    await reviewRecipient(gateway, merchant, rejected, 'reject');
    await reviewRecipient(gateway, merchant, deactivated, 'approve');
    await reviewRecipient(gateway, merchant, deactivated, 'deactivate');
    const base = `/admin/v1/accounts/${merchant.accountId}/recipients`;
    const unknownId = expectedRecipientId('cpf', generatedCpf(999).replace(/\D/g, ''));

    const cases: [string, string, string, unknown, number, string][] = [
      ['approve an active one', 'POST', `${base}/${active}/approve`, undefined, 422, NOT_PENDING_REVIEW],
      ['approve a rejected one', 'POST', `${base}/${rejected}/approve`, undefined, 422, NOT_PENDING_REVIEW],
      ['reject an active one', 'POST', `${base}/${active}/reject`, undefined, 422, NOT_PENDING_REVIEW],
      ['reject a deactivated one', 'POST', `${base}/${deactivated}/reject`, undefined, 422, NOT_PENDING_REVIEW],
      ['deactivate one under review', 'POST', `${base}/${pending}/deactivate`, undefined, 422, NOT_ACTIVE],
      ['deactivate a deactivated one', 'POST', `${base}/${deactivated}/deactivate`, undefined, 422, NOT_ACTIVE],
      ['deactivate a rejected one', 'POST', `${base}/${rejected}/deactivate`, undefined, 422, NOT_ACTIVE],
      ['approve an unknown recipient', 'POST', `${base}/${unknownId}/approve`, undefined, 404, RECIPIENT_NOT_FOUND],
      ['deactivate in an unknown account', 'POST', `/admin/v1/accounts/${newId()}/recipients/${active}/deactivate`, undefined, 404, RECIPIENT_NOT_FOUND],
      ['recipientId in capitals', 'POST', `${base}/${pending.toUpperCase()}/approve`, undefined, 400, RECIPIENT_ID_INVALID],
      ['recipientId of 23 characters', 'POST', `${base}/${pending.slice(1)}/reject`, undefined, 400, RECIPIENT_ID_INVALID],
      ['recipientId not hex', 'POST', `${base}/${'z'.repeat(24)}/deactivate`, undefined, 400, RECIPIENT_ID_INVALID],
      ['malformed accountId', 'POST', `/admin/v1/accounts/not-an-id/recipients/${pending}/approve`, undefined, 400, 'accountId inválido.'],
      ['approval label over 80', 'POST', `${base}/${pending}/approve`, { label: 'l'.repeat(81) }, 400, LABEL_TOO_LONG],
      ['reason over 500', 'POST', `${base}/${pending}/reject`, { reason: 'r'.repeat(501) }, 400, 'reason inválido.'],
      ['unknown status filter', 'GET', '/admin/v1/recipients?status=approved', undefined, 400, 'status inválido.'],
      ['malformed accountId filter', 'GET', '/admin/v1/recipients?accountId=123', undefined, 400, 'accountId inválido.'],
    ];
    for (const [name, method, path, body, status, error] of cases) {
      const reply = await gateway.admin(method, path, body);
      expect({ name, status: reply.status, body: reply.body }).toEqual({ name, status, body: { error } });
    }
    // Nothing changed.
    expect(await operatorView(merchant, pending)).toMatchObject({ status: 'pending_review' });
    expect(await operatorView(merchant, active)).toMatchObject({ status: 'active' });
  });

  it('needs the operator token', async () => {
    const merchant = await gateway.createMerchant();
    const path = `/admin/v1/accounts/${merchant.accountId}/recipients/${expectedRecipientId('cpf', CPF.digits)}/approve`;
    expect(await gateway.call('POST', path, { key: null })).toMatchObject({
      status: 401,
      body: { error: 'Token de operador obrigatório. Use: Authorization: Bearer <ADMIN_TOKEN>' },
    });
    expect(await gateway.call('GET', '/admin/v1/recipients', { key: merchant.apiKey })).toMatchObject({
      status: 401,
      body: { error: 'Token de operador inválido.' },
    });
  });

  it('a recipient is found only within its account, with what withdrawals need', async () => {
    const [merchant, other] = [await gateway.createMerchant(), await gateway.createMerchant()];
    const { body } = await registerRecipient(gateway, merchant, recipientBody({ pixKey: CPF.formatted, pixKeyType: 'cpf' }));
    await reviewRecipient(gateway, merchant, body.recipientId, 'approve', { label: 'Para saques' });
    expect(await findRecipient(gateway.database.db, merchant.accountId, body.recipientId)).toMatchObject({
      id: body.recipientId,
      status: 'active',
      legalName: 'Fornecedora Silva ME',
      document: CPF.digits,
      documentType: 'cpf',
      pixKey: CPF.digits,
      pixKeyType: 'cpf',
      approvedLabel: 'Para saques',
    });
    expect(await findRecipient(gateway.database.db, other.accountId, body.recipientId)).toBeUndefined();
    expect(await findRecipient(gateway.database.db, merchant.accountId, expectedRecipientId('cpf', OTHER_CPF.digits))).toBeUndefined();
  });
});

describe(`concurrency (${backend})`, () => {
  it('30 concurrent registrations on two servers against a ceiling of 10: exactly 10 × 201 and 20 × 422', async () => {
    const merchant = await gateway.createMerchant({ limits: { recipientsPerHour: 1000 } });
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        callAt(n % 2 ? peerUrl : gateway.url, 'POST', '/v1/recipients', { key: merchant.apiKey, body: recipientBody({ document: generatedCpf(300 + n) }) }),
      ),
    );
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 10, 422: 20 });
    expect(replies.filter((reply) => reply.status === 422).every((reply) => errorOf(reply.body) === limitReached(10))).toBe(true);
    const stored = await gateway.database.db.selectFrom('recipients').select(['id', 'status']).where('accountId', '=', merchant.accountId).execute();
    expect(stored).toHaveLength(10);
    expect(new Set(stored.map((row) => row.id))).toEqual(new Set(replies.filter((reply) => reply.status === 201).map((reply) => reply.body.recipientId)));
  });

  it('concurrent registrations of one document create one recipient', async () => {
    const merchant = await gateway.createMerchant({ limits: { recipientsPerHour: 1000 } });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, n) => callAt(n % 2 ? peerUrl : gateway.url, 'POST', '/v1/recipients', { key: merchant.apiKey, body: recipientBody() })),
    );
    expect(countBy(replies.map((reply) => reply.status))).toEqual({ 201: 1, 200: 19 });
    expect(new Set(replies.map((reply) => reply.body.recipientId))).toEqual(new Set([expectedRecipientId('cpf', CPF.digits)]));
    const stored = await gateway.database.db.selectFrom('recipients').select('id').where('accountId', '=', merchant.accountId).execute();
    expect(stored).toHaveLength(1);
  });

  it('the hourly limit is exact under concurrent requests on two servers', async () => {
    const merchant = await gateway.createMerchant({ limits: { recipientsPerHour: 12 } });
    startNextHour(gateway);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        callAt(n % 2 ? peerUrl : gateway.url, 'POST', '/v1/recipients', {
          key: merchant.apiKey,
          body: recipientBody({ document: generatedCpf(400 + (n % 5)) }),
        }),
      ),
    );
    const counts = countBy(replies.map((reply) => reply.status));
    expect(counts[429]).toBe(18);
    expect((counts[201] ?? 0) + (counts[200] ?? 0)).toBe(12);
    const stored = await gateway.database.db.selectFrom('recipients').select('id').where('accountId', '=', merchant.accountId).execute();
    expect(stored).toHaveLength(counts[201] ?? 0);
  });
});
