import { formatBrl } from './pix/money.js';

/** A value as the client sent it, for the `Recebido: '<value>'` messages (absent = empty; an object reads [object Object]). */
// eslint-disable-next-line @typescript-eslint/no-base-to-string -- any JSON value may arrive; its plain string form is what the message shows
export const receivedText = (value: unknown): string => String(value ?? '');

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

  // POST /v1/withdraw (pixKey, pixKeyType, recipientId texts are shared with recipients, below)
  withdrawalAmountInvalid: 'amountCents deve ser inteiro ≥ 100 (R$1,00 mínimo) para saque.',
  withdrawalAboveMaximum: (maximumCents: number) => `Saque acima do máximo por transação (${formatBrl(maximumCents)}).`,
  descriptionTooLong: 'description deve ter no máximo 200 caracteres.',
  pixKeyNotCpf: 'pixKey não é um CPF válido.',
  pixKeyNotCnpj: 'pixKey não é um CNPJ válido.',
  pixKeyNotEmail: 'pixKey não é um e-mail válido (máximo 77 caracteres).',
  pixKeyNotPhone: 'pixKey deve ser um telefone no formato +55DDDNÚMERO.',
  pixKeyNotEvp: 'pixKey deve ser uma chave aleatória (UUID) válida.',
  thirdPartyKeyNeedsRecipient: 'Saque para chaves email/telefone/aleatória exige destinatário autorizado.',
  recipientKeyTypeMismatch: 'Tipo de chave (CPF/CNPJ) não bate com o tipo do documento do destinatário.',
  pixKeyTypeNotAllowed: (type: string) => `Tipo de chave PIX '${type}' não autorizado para esta conta.`,
  holderCpfOnly: 'Saque com chave CPF só permitido para o CPF do responsável cadastrado.',
  holderCnpjOnly: 'Saque com chave CNPJ só permitido para o CNPJ cadastrado da empresa.',
  recipientKeyMismatch: 'Chave PIX (CPF/CNPJ) não corresponde ao documento do destinatário autorizado.',
  recipientDeactivated: (serviceName: string) => `Destinatário desativado pelo time ${serviceName}. Saque cancelado.`,
  insufficientBalance: 'Saldo insuficiente para realizar o saque.',
  withdrawalDailyCap: (capCents: number) => `Limite diário de saques excedido (${formatBrl(capCents)}).`,
  withdrawalMonthlyCap: (capCents: number) => `Limite mensal de saques excedido (${formatBrl(capCents)}).`,
  withdrawalPerSecond: 'Aguarde alguns segundos antes do próximo saque.',
  withdrawalPerMinute: 'Muitos saques em curto intervalo. Aguarde alguns instantes.',
  withdrawalPerHour: 'Limite de saques atingido.',
  withdrawalProviderFailed: 'Erro ao processar saque. O valor não foi debitado.',
  withdrawalConfirmationInterrupted: (transactionId: string) => `Saque iniciado mas confirmação interrompida. Consulte /v1/transactions/${transactionId}`,
  withdrawalIndeterminate: 'Saque em verificação. Saldo debitado; status final em até 24h.',
  withdrawalWrongStatus: (status: string) => `Saque não permite esta operação no status atual (${status}).`,
  returnAmountInvalid: 'amountCents da devolução deve ser um inteiro entre 1 e o valor do saque.',

  // Transactions
  transactionIdInvalid: 'transactionId inválido.',
  transactionNotFound: 'Transação não encontrada.',
  transactionTypeInvalid: (received: string) => `type deve ser 'pix_in' ou 'withdrawal'. Recebido: '${received}'.`,
  listLimitInvalid: 'limit deve ser um inteiro entre 1 e 100.',

  // Recipients: POST /v1/recipients in validation order, the list, the operator's review.
  // The pixKey / pixKeyType / recipientId texts are the spec's for /v1/withdraw too: one message each.
  legalNameRequired: 'legalName é obrigatório (mínimo 2 caracteres).',
  legalNameTooLong: 'legalName deve ter no máximo 120 caracteres.',
  recipientDocumentRequired: 'document é obrigatório.',
  recipientDocumentTypeInvalid: (received: string) => `documentType deve ser 'cpf' ou 'cnpj'. Recebido: '${received}'.`,
  recipientDocumentCharacters: 'document deve conter apenas dígitos, pontos, traços e barras.',
  recipientDocumentLength: (type: 'cpf' | 'cnpj', digits: number) => `document deve ter ${type === 'cpf' ? 11 : 14} dígitos para ${type}. Recebido: ${digits}.`,
  recipientDocumentCheckDigits: (type: 'cpf' | 'cnpj') => (type === 'cpf' ? 'document não é um CPF válido.' : 'document não é um CNPJ válido.'),
  pixKeyRequired: 'pixKey obrigatória.',
  pixKeyTooLong: 'pixKey deve ter no máximo 150 caracteres.',
  pixKeyTypeInvalid: (received: string) => `pixKeyType deve ser 'cpf', 'cnpj', 'email', 'phone' ou 'evp'. Recebido: '${received}'.`,
  recipientKeyDocumentMismatch: 'Chave PIX (CPF/CNPJ) não corresponde ao documento informado.',
  recipientLabelTooLong: 'label deve ter no máximo 80 caracteres.',
  recipientLimitReached: (limit: number) => `Limite de ${limit} destinatários atingido. Remova um inativo ou fale com o suporte.`,
  recipientsRateLimited: 'Limite de requisições atingido.',
  recipientPendingNote: (serviceName: string) => `Destinatário em análise pelo time ${serviceName}. Saques para ele só serão liberados após a aprovação.`,
  recipientActiveNote: (serviceName: string) => `Destinatário já aprovado pelo time ${serviceName}. Saques liberados.`,
  recipientIdInvalid: 'recipientId inválido.',
  recipientNotFound: 'Destinatário autorizado não encontrado.',
  recipientNotPendingReview: 'Destinatário não está em análise.',
  recipientNotActive: 'Destinatário não está ativo.',

  // Webhooks (operator API)
  webhookUrlInvalid: 'url deve ser uma URL HTTPS válida (máximo 2048 caracteres).',
  webhookUrlNotPublic: 'url deve apontar para um endereço público.',
  webhookEventsNotList: 'events deve ser uma lista (até 50) de nomes de eventos ou categorias.',
  webhookEventsInvalid: (entry: string) => `events contém um evento ou categoria desconhecido: '${entry}'.`,
  webhookEndpointLimit: (limit: number) => `Limite de ${limit} URLs de webhook atingido.`,
  webhookEndpointIdInvalid: 'endpointId inválido.',
  webhookEndpointNotFound: 'Endpoint de webhook não encontrado.',
  webhookOverlapInvalid: 'overlapSeconds deve ser um inteiro entre 0 e 604800 (7 dias).',
  webhookDeliveryIdInvalid: 'deliveryId inválido.',
  webhookDeliveryNotFound: 'Entrega de webhook não encontrada.',
  webhookEventIdInvalid: 'eventId inválido.',
  webhookResendEndpointRemoved: 'Endpoint de webhook removido; não é possível reenviar.',
  webhookResendRateLimited: 'Limite de 10 reenvios por hora atingido.',

  // HTTP plumbing
  routeNotFound: 'Rota não encontrada.',
  bodyNotJson: 'Content-Type deve ser application/json.',
  bodyMalformed: 'Corpo da requisição não é um JSON válido.',
  bodyEmpty: 'Corpo da requisição vazio. Envie um objeto JSON.',
  bodyNotObject: 'Corpo da requisição deve ser um objeto JSON.',
  bodyTooLarge: 'Corpo da requisição excede o tamanho máximo.',
  bodyCharsetInvalid: 'Content-Type deve usar charset=utf-8 (ou nenhum charset).',
  bodyNotUtf8: 'Corpo da requisição não é UTF-8 válido.',
  bodyTooDeep: (levels: number) => `Corpo da requisição aninhado demais (máximo ${levels} níveis).`,
  bodyInvalidText: 'Corpo da requisição contém texto inválido (caractere NUL ou UTF-16 malformado).',
  urlInvalid: 'URL inválida.',
  requestMalformed: 'Requisição HTTP malformada.',
  headersTooLarge: 'Cabeçalhos da requisição excedem o tamanho máximo.',
  requestTimeout: 'Requisição não recebida a tempo.',
  connectionOverloaded: 'Respostas demais pendentes nesta conexão; leia as respostas antes de enviar mais requisições.',
  requestInvalid: 'Requisição inválida.',
  bodyInvalid: 'Corpo da requisição inválido.',
  /** A check without a message of its own (mostly the operator API) names the field. */
  fieldInvalid: (path: string) => `${path} inválido.`,
  internalError: 'Erro interno. Tente novamente.',
  databaseUnreachable: 'Banco de dados indisponível.',
  migrationsPending: (files: readonly string[]) => `Migrações pendentes: ${files.join(', ')}.`,
  serviceUnavailable: 'Serviço temporariamente indisponível. Tente novamente em instantes.',

  // Sandbox
  chargeNotPending: (status: string) => `Cobrança não está pendente (status atual: ${status}).`,
  sandboxAmountMismatch: 'amountCents do pagamento deve ser igual ao valor da cobrança.',
  sandboxPayerInvalid: 'payer inválido: informe name, document (11 ou 14 dígitos), documentType e bankAccount.',
  sandboxChargeOutcomeInvalid: "outcome deve ser 'provider_error'.",
  sandboxWithdrawalOutcomeInvalid: "outcome deve ser 'provider_error', 'unknown' ou 'interrupted'.",
  sandboxSettleOutcomeInvalid: "outcome deve ser 'paid', 'failed' ou 'returned'.",
  sandboxDictKeyTypeInvalid: "keyType deve ser 'email', 'phone' ou 'evp'.",

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
  balanceOutOfRange: (maximumCents: number) => `Operação levaria o saldo além do limite (${formatBrl(maximumCents)}).`,
  ipAllowlistInvalid: (entry: string) => `ipAllowlist contém um IP ou CIDR inválido: '${entry}'.`,
  feePlanInvalid: 'fees: minCents deve ser menor ou igual a maxCents.',
  chargeLimitsInvalid: 'limits: chargeMinCents deve ser menor ou igual a chargeMaxCents.',
  withdrawLimitsInvalid: 'limits: withdrawMinCents deve ser menor ou igual a withdrawMaxCents.',
  cpfInvalid: (field: string) => `${field} deve ser um CPF válido.`,
  cnpjInvalid: (field: string) => `${field} deve ser um CNPJ válido.`,
} as const;
