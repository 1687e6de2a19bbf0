// Examples for the merchant's main calls in the OpenAPI document (docs/openapi.md): a request a
// merchant sends and the answer the gateway gives, taken from a run against the simulated
// provider (ids, payloads and times as it answered). The zod schemas stay the contract; these only
// show it; the OpenAPI lint checks each against its schema (no-invalid-media-type-examples).

const CHARGE_ID = '01a2533d-cf60-7681-b06a-3ad26887b5c6';
const PIX_PAYLOAD =
  '00020101021226770014br.gov.bcb.pix2555pix.example.com/pix/v2/7b03b3162f5c44a6adebe9d27a098e885204000053039865802BR5910Loja Teste6008Curitiba62070503***63043138';

type OperationExample = {
  /** The JSON body sent. */
  request?: unknown;
  /** The JSON answer, by status. */
  responses: Readonly<Record<string, unknown>>;
};

/** Keyed `METHOD /path`, as OPERATION_IDS. */
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  'POST /v1/pix': {
    request: {
      amountCents: 15000,
      customer: { name: 'Ana Pagadora', email: 'ana@example.com', phone: '11987654321', document: { number: '529.982.247-25', type: 'cpf' } },
      externalRef: 'pedido-1234',
      expiresInDays: 2,
    },
    responses: {
      201: { transactionId: CHARGE_ID, status: 'pending', pixPayload: PIX_PAYLOAD, expiresAt: 1796865689, amountCents: 15000 },
      // The same externalRef again within 7 days: the original charge.
      200: { transactionId: CHARGE_ID, status: 'pending', pixPayload: PIX_PAYLOAD, expiresAt: 1796865689, amountCents: 15000, idempotent: true },
    },
  },
  'GET /v1/transactions/{id}': {
    responses: {
      200: {
        transactionId: CHARGE_ID,
        type: 'pix_in',
        amountCents: 15000,
        feeCents: 149,
        netCents: 14851,
        status: 'paid',
        externalRef: 'pedido-1234',
        pixPayload: PIX_PAYLOAD,
        expiresAt: 1796865689,
        paidAt: 1796692889996,
        createdAt: 1796692889424,
        updatedAt: 1796692889996,
        endToEndId: 'E18236120202612080121ECabKS01dS8',
        payer: {
          name: 'Pagador Sandbox',
          document: '52998224725',
          documentType: 'cpf',
          bankAccount: { ispb: '18236120', branch: '0001', account: '123456' },
        },
      },
    },
  },
  'GET /v1/balance': {
    responses: {
      200: { available: 14851, pending: 0, currency: 'BRL', updatedAt: 1796692890218, blocked: 0, withdrawable: 14851, owed: 0, shortfall: 0 },
    },
  },
  'POST /v1/withdraw': {
    request: { amountCents: 5000, pixKey: '52998224725', pixKeyType: 'cpf' },
    responses: {
      201: { transactionId: '01a2533d-d2ce-75e5-8086-9176c0422733', status: 'processing', amountCents: 5000, feeCents: 100, totalDeducted: 5100 },
    },
  },
  'POST /v1/recipients': {
    request: {
      legalName: 'Fornecedor Exemplo LTDA',
      document: '11.222.333/0001-81',
      documentType: 'cnpj',
      label: 'Fornecedor',
      pixKey: 'financeiro@fornecedor.com.br',
      pixKeyType: 'email',
    },
    responses: {
      201: {
        recipientId: '620c24e4140c3ad3183117ae',
        status: 'pending_review',
        note: 'Destinatário em análise pelo time SVC. Saques para ele só serão liberados após a aprovação.',
      },
    },
  },
  'POST /v1/transactions/{id}/refunds': {
    request: { amountCents: 5000, reason: 'Produto devolvido' },
    responses: {
      201: {
        refundId: '01a2533d-d278-7196-b6fc-83fff81b2d7b',
        transactionId: CHARGE_ID,
        kind: 'merchant',
        amountCents: 5000,
        status: 'processing',
        reason: 'Produto devolvido',
        externalRef: null,
        createdAt: 1796692890226,
        settledAt: null,
      },
    },
  },
};
