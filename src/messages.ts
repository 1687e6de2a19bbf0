import { formatBrl } from './pix/money.js';

/**
 * Every message the API returns, in one place. The spec's texts are quoted to the character;
 * the others follow DESIGN.md §5 and docs/errors.md.
 */
export const messages = {
  // Authentication and account preconditions
  apiKeyMissing: 'API key obrigatória. Use: Authorization: Bearer <key>',
  apiKeyInvalid: 'API key inválida ou revogada.',
  accountNotApproved: 'Conta não está aprovada para uso da API.',
  accountBlocked: 'Conta suspensa. Contate o suporte.',
  ipNotAllowed: 'IP de origem não autorizado para esta chave.',

  // POST /v1/pix, in the order of the spec's 400 table
  chargeAmountInvalid: 'amountCents deve ser inteiro ≥ 100 (R$1,00 mínimo).',
  customerNameRequired: 'customer.name obrigatório.',
  customerNameTooLong: 'customer.name deve ter no máximo 100 caracteres.',
  documentRequired: 'customer.document.number e customer.document.type obrigatórios.',
  documentTypeRequired: 'customer.document.type é obrigatório.',
  documentTypeInvalid: (received: string) => `customer.document.type deve ser 'cpf' ou 'cnpj'. Recebido: '${received}'.`,
  documentNumberCharacters: 'customer.document.number deve conter apenas dígitos, pontos, traços e barras.',
  documentNumberLength: (type: 'cpf' | 'cnpj', digits: number) =>
    `customer.document.number deve ter ${type === 'cpf' ? 11 : 14} dígitos para ${type}. Recebido: ${digits} dígitos.`,
  customerEmailInvalid: 'customer.email é obrigatório e deve ser válido.',
  customerPhoneInvalid: 'customer.phone é obrigatório (DDD + número, 10 ou 11 dígitos).',
  expiresInDaysInvalid: 'expiresInDays deve ser um inteiro entre 1 e 30.',
  externalRefInvalid: 'externalRef deve ser um texto de 1 a 100 caracteres.',
  amountBelowMinimum: (minimumCents: number) => `Valor abaixo do mínimo (${formatBrl(minimumCents)}).`,
  amountAboveMaximum: (maximumCents: number) => `Valor acima do máximo (${formatBrl(maximumCents)}).`,
  pixRateLimited: 'Limite de requisições atingido. Tente em 1 hora.',
  providerChargeFailed: 'Erro ao comunicar com gateway. Tente novamente.',

  // Transactions
  transactionIdInvalid: 'transactionId inválido.',
  transactionNotFound: 'Transação não encontrada.',
  transactionTypeInvalid: (received: string) => `type deve ser 'pix_in' ou 'withdrawal'. Recebido: '${received}'.`,
  listLimitInvalid: 'limit deve ser um inteiro entre 1 e 100.',

  // HTTP plumbing
  routeNotFound: 'Rota não encontrada.',
  bodyNotJson: 'Content-Type deve ser application/json.',
  bodyMalformed: 'Corpo da requisição não é um JSON válido.',
  bodyEmpty: 'Corpo da requisição vazio. Envie um objeto JSON.',
  bodyNotObject: 'Corpo da requisição deve ser um objeto JSON.',
  bodyTooLarge: 'Corpo da requisição excede o tamanho máximo.',
  bodyInvalidText: 'Corpo da requisição contém texto inválido (caractere NUL ou UTF-16 malformado).',
  urlInvalid: 'URL inválida.',
  requestInvalid: 'Requisição inválida.',
  internalError: 'Erro interno. Tente novamente.',

  // Sandbox
  sandboxChargeNotPending: (status: string) => `Cobrança não está pendente (status atual: ${status}).`,
  sandboxAmountMismatch: 'amountCents do pagamento deve ser igual ao valor da cobrança.',
  sandboxPayerInvalid: 'payer inválido: informe name, document (11 ou 14 dígitos), documentType e bankAccount.',

  // Operator API
  adminTokenMissing: 'Token de operador obrigatório. Use: Authorization: Bearer <ADMIN_TOKEN>',
  adminTokenInvalid: 'Token de operador inválido.',
  accountNotFound: 'Conta não encontrada.',
  accountIdInvalid: 'accountId inválido.',
  apiKeyNotFound: 'API key não encontrada.',
  keyIdInvalid: 'keyId inválido.',
  blockNotFound: 'Bloqueio não encontrado.',
  blockIdInvalid: 'blockId inválido.',
  keyCreationNotAllowed: 'Conta sem KYC aprovado ou e-mail verificado.',
  adjustmentWouldGoNegative: 'Ajuste deixaria o saldo negativo.',
  ipAllowlistInvalid: (entry: string) => `ipAllowlist contém um IP ou CIDR inválido: '${entry}'.`,
  feePlanInvalid: 'fees: minCents deve ser menor ou igual a maxCents.',
  chargeLimitsInvalid: 'limits: chargeMinCents deve ser menor ou igual a chargeMaxCents.',
  withdrawLimitsInvalid: 'limits: withdrawMinCents deve ser menor ou igual a withdrawMaxCents.',
  cpfInvalid: (field: string) => `${field} deve ser um CPF válido.`,
  cnpjInvalid: (field: string) => `${field} deve ser um CNPJ válido.`,
} as const;
