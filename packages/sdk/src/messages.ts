// The SDK's own messages, in Portuguese like the gateway's (which reach the caller unchanged as
// PixGatewayError.message). One place, so they are written once.
export const messages = {
  apiKeyRequired: 'apiKey é obrigatória: a chave de API do lojista (Authorization: Bearer <key>).',
  baseUrlInvalid: (value: string) => `baseUrl inválida: '${value}'. Use o endereço do gateway, por exemplo https://pix.example.com.`,
  optionInvalid: (name: string, rule: string) => `${name} inválido: ${rule}.`,
  timeout: (method: string, path: string, timeoutMs: number) => `Tempo esgotado após ${timeoutMs} ms aguardando ${method} ${path}.`,
  network: (method: string, path: string, reason: string) => `Falha de rede em ${method} ${path}: ${reason}.`,
  aborted: (method: string, path: string) => `Chamada ${method} ${path} cancelada (AbortSignal).`,
  noMessage: (status: number) => `O gateway respondeu HTTP ${status} sem mensagem de erro.`,
  unexpectedBody: (method: string, path: string, status: number) =>
    `Resposta inesperada do gateway a ${method} ${path} (HTTP ${status}): o corpo não é o JSON do contrato.`,
  webhookHeadersMissing: 'Webhook sem os cabeçalhos webhook-id, webhook-timestamp e webhook-signature.',
  webhookTimestampInvalid: 'Webhook com webhook-timestamp inválido.',
  webhookTimestampTooOld: (toleranceSeconds: number) => `Webhook com webhook-timestamp fora da tolerância (mais de ${toleranceSeconds} s no passado).`,
  webhookTimestampTooNew: (toleranceSeconds: number) => `Webhook com webhook-timestamp fora da tolerância (mais de ${toleranceSeconds} s no futuro).`,
  webhookSignatureInvalid: 'Assinatura do webhook inválida para os segredos informados.',
  webhookSecretMissing: 'Informe ao menos um segredo de webhook (whsec_…).',
  webhookSecretInvalid: 'Segredo de webhook inválido: use o valor whsec_… mostrado ao cadastrar a URL.',
  webhookBodyInvalid: 'Corpo do webhook não é um evento JSON do gateway.',
};
