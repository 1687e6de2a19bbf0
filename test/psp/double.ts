import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Agent, request as send } from 'undici';
import { generateEndToEndId } from '../../src/pix/endToEndId.js';
import { buildDynamicBrCode } from '../../src/pix/brcode.js';
import { crc16CcittFalse } from '../../src/pix/crc16.js';
import { dayOf } from '../../src/platform/saoPauloDay.js';
import type { PspCertificates } from './certificates.js';
import { ApiPixContract, type Operation } from './openapi.js';

/**
 * A stateful API Pix PSP for the tests (DESIGN.md §12): HTTPS that requires a client certificate,
 * OAuth2 client credentials, charges (cob, and cobv with a due date), received PIX, devoluções and Efí's cash-out. Every
 * API Pix request it receives and every answer it sends is checked against Banco Central's
 * OpenAPI (`violations` collects what fails: a scenario ends by asserting it is empty); Efí's
 * endpoints, which are not API Pix (the cash-out `/gn/pix`, its list `/gn/pix/enviados` and the
 * balance `/gn/saldo`), are checked against Efí's published fields.
 */

const DOUBLE_ISPB = '12345678';
export const CLIENT_ID = 'gateway-client';
export const CLIENT_SECRET = 'gateway-secret-0123456789';
const BASE_PATH = '/api/v2';
const PROBLEM_BASE = 'https://pix.bcb.gov.br/api/v2/error/';

type Json = Record<string, unknown>;
type Devolucao = {
  id: string;
  rtrId: string;
  valor: string;
  natureza: string;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  horario: { solicitacao: string; liquidacao?: string };
  motivo?: string;
};
type Cob = { txid: string; status: string; valor: string; chave: string; expiracao: number; criacao: string; revisao: number; locId: number; location: string };
/** A modality and its value, as API Pix writes a cobv's fine, interest, abatement and per-day discount. */
type Modality = { modalidade: number; valorPerc: string };
/** A charge with a due date as the double holds it: the parts of the PUT as sent, and its state. */
type CobV = {
  txid: string;
  status: string;
  calendario: { dataDeVencimento: string; validadeAposVencimento: number };
  devedor: { nome: string; cpf?: string; cnpj?: string };
  valor: {
    original: string;
    multa?: Modality;
    juros?: Modality;
    abatimento?: Modality;
    desconto?: { modalidade: number; valorPerc?: string; descontoDataFixa?: { data: string; valorPerc: string }[] };
  };
  chave: string;
  criacao: string;
  revisao: number;
  locId: number;
  location: string;
  pixCopiaECola: string;
};
/** API Pix `componentesValor` of a PIX that pays a cobv, each part in cents. */
type ValueParts = { original: number; multa?: number; juros?: number; abatimento?: number; desconto?: number };
type ReceivedPix = {
  endToEndId: string;
  txid: string;
  valor: string;
  chave: string;
  horario: string;
  devolucoes: Devolucao[];
  payer: Payer;
  componentesValor?: Record<string, { valor: string }>;
};
type Payer = { nome: string; cpf?: string; cnpj?: string; codigoBanco: string };
type SendStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';
type StatusChange = { status: string; data: string };
/** A Pix Automático recurrence (rec) as the double holds it: the POST /rec body as sent, its request to the payer, its state. */
type Rec = {
  idRec: string;
  status: 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
  vinculo: Json;
  calendario: Json;
  valor?: Json;
  politicaRetentativa: string;
  atualizacao: StatusChange[];
  encerramento?: Json;
  /** When the PSP created it, on its clock (`GET /rec` lists by it). */
  createdAt: Date;
  /** The POST /solicrec body (idRec, calendario, destinatario), once sent. */
  solicitacao?: { idSolicRec: string; body: Json; status: string; atualizacao: StatusChange[] };
};
/** A cycle's charge (cobr) as the double holds it. */
type CobRecorrente = {
  txid: string;
  idRec: string;
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  body: Json;
  criacao: string;
  /** When the PSP created it, on its clock (`GET /cobr` lists by it). */
  createdAt: Date;
  atualizacao: StatusChange[];
  tentativas: { dataLiquidacao: string; tipo: string; status: string; endToEndId: string; atualizacao: StatusChange[]; rejeicao?: Json }[];
  encerramento?: Json;
};
type Send = {
  idEnvio: string;
  e2eId: string;
  valor: string;
  status: SendStatus;
  favorecido: { chave: string; nome: string };
  solicitacao: string;
  liquidacao?: string;
};

/**
 * How a send whose answer is lost ends at the PSP: it took the request (a withdrawal's PUT
 * /gn/pix or a devolução) but never answers it, nor its repeats, and the send appears — completed —
 * after `ms`, right after the first status query about it (which still answers 404), or never.
 */
export type LostAnswer = { completes: 'after'; ms: number } | { completes: 'after_first_query' } | { completes: 'never' };

/** How the double tells the gateway of a PIX or a devolução. */
export type Notify = 'once' | 'twice' | 'none' | 'batched' | 'late';

export const DEFAULT_PAYER: Payer = { nome: 'Pagador Real', cpf: '12345678909', codigoBanco: '87654321' };

export type PspDouble = {
  /** PSP_BASE_URL for the gateway. */
  baseUrl: string;
  tokenUrl: string;
  /** Contract violations seen so far (requests received, answers sent, notifications sent). */
  violations: string[];
  /** Requests received, as `METHOD path` (the OAuth token requests included). */
  calls: string[];
  tokensIssued(): number;
  cob(txid: string): Cob | undefined;
  /** A charge with a due date registered by `PUT /cobv/{txid}`. */
  cobv(txid: string): CobV | undefined;
  pix(endToEndId: string): ReceivedPix | undefined;
  /** The PIX that paid a charge, if any. */
  pixOfCharge(txid: string): ReceivedPix | undefined;
  send(idEnvio: string): Send | undefined;
  /** Where notifications go (the gateway's listener); none until set. */
  setWebhook(url: string): void;
  /** A payer pays a charge; answers the PIX's end-to-end id. `amount` in cents (the charge's by default). */
  pay(txid: string, options?: { amountCents?: number; payer?: Payer; notify?: Notify }): Promise<string>;
  /**
   * A payer pays a cobv `amountCents` (the double computes no amount due: the test says what was
   * paid, and its `componentesValor` when given); `at` is the PIX's horario (now by default).
   */
  payCobv(txid: string, options: { amountCents: number; parts?: ValueParts; payer?: Payer; notify?: Notify; at?: Date }): Promise<string>;
  /** A payer pays a static BR Code: a PIX to the PSP's key with the code's txid, no cob behind it. */
  payStatic(txid: string, options: { amountCents: number; payer?: Payer; notify?: Notify }): Promise<string>;
  /** The PSP removes a charge, cob or cobv (REMOVIDA_PELO_PSP). */
  removeCharge(txid: string): void;
  settleRefund(endToEndId: string, id: string, outcome: 'DEVOLVIDO' | 'NAO_REALIZADO', notify?: Notify): Promise<void>;
  /** The PSP returns money of a PIX through MED; answers the return's rtrId. */
  injectMed(endToEndId: string, amountCents: number, natureza: 'MED_FRAUDE' | 'MED_OPERACIONAL' | 'MED_PIX_AUTOMATICO', notify?: Notify): Promise<string>;
  settleSend(idEnvio: string, outcome: 'REALIZADO' | 'NAO_REALIZADO'): void;
  /** The account's balance in cents as `GET /gn/saldo` answers it: the starting balance + PIX received − PIX sent (REALIZADO) − devoluções DEVOLVIDO. */
  balanceCents(): number;
  /**
   * The PSP's records disagree with what happened (reconciliation): each changes what its lists,
   * queries and balance show from now on, and notifies no one.
   */
  alterPix(endToEndId: string, changes: { valor?: string }): void;
  alterDevolucao(endToEndId: string, id: string, changes: { valor?: string; status?: Devolucao['status'] }): void;
  alterSend(idEnvio: string, changes: { valor?: string; status?: SendStatus }): void;
  /** The PSP loses a received PIX (and its devoluções) or a send from its records. */
  dropPix(endToEndId: string): void;
  dropSend(idEnvio: string): void;
  /** A PIX received to the key for no charge of this PSP (another txid), at `at` (now by default); answers its end-to-end id. */
  receiveStray(options: { amountCents: number; at?: Date }): string;
  /** A send the PSP records that the gateway did not ask for (made by other means, or under an id of the gateway's it never used). */
  recordStraySend(options: { idEnvio: string; amountCents: number; status?: SendStatus; at?: Date }): void;
  /** Who holds an email/phone/evp key (cpf/cnpj keys are their own document's). */
  registerKey(key: string, holder: { nome: string; cpf?: string; cnpj?: string }): void;
  /** The DICT marks the key for fraud (Res. BCB 501): a send to it is refused (`chave_com_restricao`). */
  restrictKey(key: string): void;
  /** The next `count` API calls answer 503 (the token endpoint excepted). */
  failNext(count: number): void;
  /** The next call to this operation (`METHOD /path` as routed, e.g. `POST /solicrec`) answers 503. */
  failNextOf(operation: string): void;
  /**
   * The next `count` calls to this operation (`METHOD /path` as routed, e.g. `PUT /cobr/:txid`) are
   * taken as usual, but their answer is lost: the connection drops before it is sent.
   */
  loseNextAnswersOf(operation: string, count?: number): void;
  /** The next call to this operation is taken as usual, then `hook` runs (e.g. a callback delivered and applied) before it is answered. */
  beforeNextAnswerOf(operation: string, hook: () => Promise<void>): void;
  /**
   * The next charge's BR Code (cob or cobv) comes back broken this way: a wrong CRC, another
   * location, or an amount field (54) with the original amount, which a cobv's code must not carry.
   */
  tamperNextBrCode(how: 'crc' | 'location' | 'amount'): void;
  /** Every token issued so far stops working (the PSP revoked them): the next call answers 401. */
  revokeTokens(): void;
  /** The next `count` API calls answer 401 whatever the token (credentials the PSP no longer takes). */
  unauthorizedNext(count: number): void;
  /** The next `count` API calls take `ms` before answering. */
  slowNext(count: number, ms: number): void;
  /** The next send (withdrawal or devolução) is taken and never answered; it completes as `fault` says. */
  loseNextSendAnswer(fault: LostAnswer): void;
  /** How many times the send was asked for (PUT) and asked about (GET), by its id. */
  attemptsOf(id: string): { puts: number; gets: number };
  /** Sends the notifications held by `batched` and `late` in one call. */
  flush(): Promise<void>;
  /** A recurrence registered by `POST /rec` (with its solicrec once sent). */
  rec(idRec: string): Rec | undefined;
  /** A cycle's charge registered by `PUT /cobr/{txid}`. */
  cobr(txid: string): CobRecorrente | undefined;
  /** The payer answers the authorization request in its bank's app (or lets it lapse); the PSP notifies (`POST {webhook}/rec`). */
  answerRec(idRec: string, status: 'APROVADA' | 'REJEITADA' | 'EXPIRADA'): Promise<void>;
  /** The PSP notifies a rec's, or a cobr's, current state (`POST {webhook}/rec`, `…/cobr`): a callback of a change it made. */
  notifyRecOf(idRec: string): Promise<void>;
  notifyCobrOf(txid: string): Promise<void>;
  /** While on, the PSP's rec and cobr callbacks are lost (never reach the gateway): only a sweep (`GET /rec`, `GET /cobr`) finds the changes. */
  loseRecurrenceCallbacks(lost: boolean): void;
  /** The payer cancels the recurrence in its bank's app (solicitante USUARIO_PAGADOR); the PSP notifies. */
  payerCancelRec(idRec: string): Promise<void>;
  /**
   * The payer's bank tries to debit a cobr: paid (CONCLUIDA, the PIX's end-to-end id answered), an
   * attempt rejected or lapsed unsettled (EXPIRADA; the cobr stays ATIVA either way: a retry may
   * follow), or the cobr rejected for good; the PSP notifies (`POST {webhook}/cobr`).
   */
  debitCobr(txid: string, outcome: 'paid' | 'attempt_failed' | 'attempt_expired' | 'rejected'): Promise<string>;
  /** Posts a notification body of one's choosing (with the PSP's client certificate, or a stranger's). */
  notifyRaw(body: unknown, options?: { stranger?: boolean }): Promise<number>;
  close(): Promise<void>;
};

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const signedMoney = (cents: number) => (cents < 0 ? `-${money(-cents)}` : money(cents));
const cents = (valor: string) => Math.round(Number(valor) * 100);
const nowIso = () => new Date().toISOString();

function problem(status: number, name: string, title: string, detail?: string): Json {
  return { type: `${PROBLEM_BASE}${name}`, title, status, ...(detail ? { detail } : {}) };
}

export async function startPspDouble(
  certificates: PspCertificates,
  options: {
    pixKey?: string;
    port?: number;
    host?: string;
    autoSettleMs?: number;
    startingBalanceCents?: number;
    /** The PSP's own clock for a cobv's dates (its creation; a due date not in the past); the real one by default. */
    now?: () => Date;
  } = {},
): Promise<PspDouble> {
  const contract = new ApiPixContract();
  const violations: string[] = [];
  const calls: string[] = [];
  const tokens = new Set<string>();
  const cobs = new Map<string, Cob>();
  const cobvs = new Map<string, CobV>();
  const pspNow = options.now ?? (() => new Date());
  const received = new Map<string, ReceivedPix>();
  const sends = new Map<string, Send>();
  const keys = new Map<string, { nome: string; cpf?: string; cnpj?: string }>();
  const restrictedKeys = new Set<string>();
  const held: string[] = [];
  let webhookUrl: string | null = null;
  let failures = 0;
  let failOn: string | null = null;
  let losing = { operation: '', count: 0 };
  let before: { operation: string; hook: () => Promise<void> } | null = null;
  let unauthorized = 0;
  let slow = { count: 0, ms: 0 };
  let armedLoss: LostAnswer | null = null;
  /** Sends whose answer is lost, by id: how each ends, and whether it has. */
  const lostSends = new Map<string, { fault: LostAnswer; complete: () => void; done: boolean }>();
  const attempts = new Map<string, { puts: number; gets: number }>();
  const count = (id: string, kind: 'puts' | 'gets') => {
    const seen = attempts.get(id) ?? { puts: 0, gets: 0 };
    seen[kind]++;
    attempts.set(id, seen);
  };
  /** Longer than any client timeout of the tests: the caller gives up before an answer comes. */
  const LOST_ANSWER_HOLD_MS = 3000;

  /** A send whose answer is lost: taken (its completion set up the first time), then held without an answer. */
  async function loseAnswer(id: string, complete: () => void): Promise<{ status: number; body: unknown } | null> {
    let lost = lostSends.get(id);
    if (!lost && armedLoss) {
      const entry = { fault: armedLoss, complete: () => undefined as void, done: false };
      entry.complete = () => {
        if (entry.done) return;
        entry.done = true;
        complete();
      };
      lost = entry;
      lostSends.set(id, entry);
      armedLoss = null;
      const { fault } = entry;
      if (fault.completes === 'after') setTimeout(entry.complete, fault.ms).unref();
    }
    if (!lost || lost.done) return null;
    await new Promise((resolve) => setTimeout(resolve, LOST_ANSWER_HOLD_MS));
    return { status: 503, body: problem(503, 'ServicoIndisponivel', 'Serviço indisponível.') };
  }

  /** A status query: one about a send lost until its first query completes it (the query itself still finds nothing). */
  function queried(id: string): void {
    count(id, 'gets');
    const lost = lostSends.get(id);
    if (lost && !lost.done && lost.fault.completes === 'after_first_query') setTimeout(lost.complete, 0);
  }
  let nextLocId = 1;
  let tamper: 'crc' | 'location' | 'amount' | null = null;
  const pixKey = options.pixKey ?? 'recebimentos@gateway.example';

  const app = Fastify({
    https: {
      cert: readFileSync(certificates.pspServerCert),
      key: readFileSync(certificates.pspServerKey),
      ca: readFileSync(certificates.caCert),
      requestCert: true,
      rejectUnauthorized: true,
    },
    logger: false,
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.post('/oauth/token', async (request, reply) => {
    calls.push('POST /oauth/token');
    const expected = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
    const body = request.body as Json | undefined;
    if (request.headers.authorization !== expected || body?.grant_type !== 'client_credentials') {
      return reply.code(401).send({ error: 'invalid_client' });
    }
    const token = randomBytes(24).toString('hex');
    tokens.add(token);
    return { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'cob.write cob.read pix.write pix.read pix.send gn.pix.send.read' };
  });

  /** An API route: token, injected faults, and the contract on both sides when `operation` is API Pix's. */
  function route(
    method: 'GET' | 'PUT' | 'PATCH' | 'POST',
    path: string,
    operation: Operation | null,
    handler: (request: FastifyRequest) => { status: number; body: unknown } | Promise<{ status: number; body: unknown }>,
  ) {
    app.route({
      method,
      url: BASE_PATH + path,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        calls.push(`${method} ${request.url.split('?')[0]}`);
        const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        if (!token || !tokens.has(token) || unauthorized > 0) {
          unauthorized = Math.max(0, unauthorized - 1);
          return reply.code(401).send({ error: 'invalid_token' });
        }
        if (slow.count > 0) {
          slow.count--;
          await new Promise((resolve) => setTimeout(resolve, slow.ms));
        }
        const params = request.params as Record<string, string>;
        const query = request.query as Record<string, string>;
        if (operation) {
          const problems = contract.checkRequest(operation, { params, query, body: request.body ?? undefined });
          if (problems.length > 0) {
            violations.push(...problems.map((text) => `${method} ${path}: ${text}`));
            return answer(reply, operation, 400, problem(400, 'RequisicaoInvalida', 'Requisição inválida.', problems.join('; ')));
          }
        }
        if (failures > 0 || failOn === `${method} ${path}`) {
          if (failOn === `${method} ${path}`) failOn = null;
          else failures--;
          const unavailable = problem(503, 'ServicoIndisponivel', 'Serviço indisponível.');
          return operation
            ? answer(reply, operation, 503, unavailable)
            : reply.code(503).send({ nome: 'servico_indisponivel', mensagem: 'Serviço indisponível.' });
        }
        const result = await handler(request);
        if (before?.operation === `${method} ${path}`) {
          const { hook } = before;
          before = null;
          await hook();
        }
        if (losing.count > 0 && losing.operation === `${method} ${path}`) {
          losing.count--;
          reply.hijack();
          reply.raw.destroy();
          return reply;
        }
        return operation ? answer(reply, operation, result.status, result.body) : reply.code(result.status).send(result.body);
      },
    });
  }

  function answer(reply: FastifyReply, operation: Operation, status: number, body: unknown) {
    for (const text of contract.checkResponse(operation, status, body)) violations.push(`${operation.method.toUpperCase()} ${operation.path} answer: ${text}`);
    return reply
      .code(status)
      .type(status >= 400 ? 'application/problem+json' : 'application/json')
      .send(body);
  }

  const cobView = (cob: Cob): Json => ({
    txid: cob.txid,
    calendario: { criacao: cob.criacao, expiracao: cob.expiracao },
    revisao: cob.revisao,
    loc: { id: cob.locId, txid: cob.txid, location: cob.location, tipoCob: 'cob', criacao: cob.criacao },
    location: cob.location,
    status: cob.status,
    valor: { original: cob.valor },
    chave: cob.chave,
    pixCopiaECola: buildDynamicBrCode({ locationUrl: cob.location, merchantName: 'GATEWAY RECEBEDOR', merchantCity: 'SAO PAULO' }),
  });
  // API Pix's Pix object, with Efí's extension naming the payer.
  const pixView = (pix: ReceivedPix): Json => ({
    endToEndId: pix.endToEndId,
    txid: pix.txid,
    valor: pix.valor,
    chave: pix.chave,
    horario: pix.horario,
    ...(pix.componentesValor ? { componentesValor: pix.componentesValor } : {}),
    ...(pix.devolucoes.length > 0 ? { devolucoes: pix.devolucoes } : {}),
    gnExtras: { pagador: pix.payer },
  });

  route('PUT', '/cob/:txid', { path: '/cob/{txid}', method: 'put' }, (request) => {
    const { txid } = request.params as { txid: string };
    const body = request.body as { calendario?: { expiracao?: number }; valor: { original: string }; chave: string };
    const existing = cobs.get(txid);
    if (existing) return { status: 201, body: cobView(existing) }; // the same PUT again: the same charge
    if (body.chave !== pixKey)
      return { status: 400, body: problem(400, 'CobOperacaoInvalida', 'Cobrança inválida.', 'A chave não pertence ao usuário recebedor.') };
    const locId = nextLocId++;
    const cob: Cob = {
      txid,
      status: 'ATIVA',
      valor: body.valor.original,
      chave: body.chave,
      expiracao: body.calendario?.expiracao ?? 86400,
      criacao: nowIso(),
      revisao: 0,
      locId,
      location: `psp.example.com/qr/v2/${randomBytes(16).toString('hex')}`,
    };
    cobs.set(txid, cob);
    const view = cobView(cob);
    tamperWith(view, cob.valor);
    return { status: 201, body: view };
  });

  /** Breaks an answer's BR Code as `tamperNextBrCode` asked, once. */
  function tamperWith(view: Json, original: string): void {
    if (tamper === 'crc') view.pixCopiaECola = `${String(view.pixCopiaECola).slice(0, -4)}0000`;
    if (tamper === 'location') view.location = 'psp.example.com/qr/v2/another';
    if (tamper === 'amount') view.pixCopiaECola = withAmount(String(view.pixCopiaECola), original);
    tamper = null;
  }

  route('PATCH', '/cob/:txid', { path: '/cob/{txid}', method: 'patch' }, (request) => {
    const cob = cobs.get((request.params as { txid: string }).txid);
    if (!cob) return { status: 404, body: problem(404, 'NaoEncontrado', 'Não Encontrado') };
    if (cob.status !== 'ATIVA') return { status: 400, body: problem(400, 'CobOperacaoInvalida', 'Cobrança não está ATIVA.') };
    cob.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
    cob.revisao++;
    return { status: 200, body: cobView(cob) };
  });

  route('GET', '/cob/:txid', { path: '/cob/{txid}', method: 'get' }, (request) => {
    const cob = cobs.get((request.params as { txid: string }).txid);
    return cob ? { status: 200, body: cobView(cob) } : { status: 404, body: problem(404, 'NaoEncontrado', 'Não Encontrado') };
  });

  route('GET', '/cob', { path: '/cob', method: 'get' }, (request) => {
    const query = request.query as Record<string, string>;
    const list = [...cobs.values()].filter(
      (cob) => (!query.status || cob.status === query.status) && cob.criacao >= String(query.inicio) && cob.criacao <= String(query.fim),
    );
    const page = paginate(list, query);
    return {
      status: 200,
      body: {
        parametros: { inicio: query.inicio, fim: query.fim, ...(query.status ? { status: query.status } : {}), paginacao: page.paginacao },
        cobs: page.items.map((cob) => ({ ...cobView(cob), idCob: `c${cob.locId}` })),
      },
    };
  });

  const RECEBEDOR = {
    cnpj: '11222333000181',
    nome: 'Gateway Recebedor Ltda',
    logradouro: 'Avenida Paulista, 1000',
    cidade: 'São Paulo',
    uf: 'SP',
    cep: '01310100',
  };
  const cobvView = (cobv: CobV): Json => ({
    calendario: { criacao: cobv.criacao, ...cobv.calendario },
    txid: cobv.txid,
    revisao: cobv.revisao,
    loc: { id: cobv.locId, txid: cobv.txid, location: cobv.location, tipoCob: 'cobv', criacao: cobv.criacao },
    location: cobv.location,
    status: cobv.status,
    devedor: cobv.devedor,
    recebedor: RECEBEDOR,
    valor: cobv.valor,
    chave: cobv.chave,
    pixCopiaECola: cobv.pixCopiaECola,
  });
  route('GET', '/cobv', { path: '/cobv', method: 'get' }, (request) => {
    const query = request.query as Record<string, string>;
    const list = [...cobvs.values()].filter(
      (cobv) => (!query.status || cobv.status === query.status) && cobv.criacao >= String(query.inicio) && cobv.criacao <= String(query.fim),
    );
    const page = paginate(list, query);
    return {
      status: 200,
      body: {
        parametros: { inicio: query.inicio, fim: query.fim, ...(query.status ? { status: query.status } : {}), paginacao: page.paginacao },
        cobs: page.items.map((cobv) => ({ ...cobvView(cobv), idCob: `c${cobv.locId}` })),
      },
    };
  });
  const cobvRefused = (detail: string) => ({ status: 400, body: problem(400, 'CobVOperacaoInvalida', 'Cobrança inválida.', detail) });
  const cobvNotFound = () => ({ status: 404, body: problem(404, 'CobVNaoEncontrada', 'Cobrança não encontrada para o txid informado.') });

  // BCB's semantic checks of a cobv (CobVOperacaoInvalida), those the schema cannot make.
  function cobvProblem(body: Omit<CobV, 'txid' | 'status' | 'criacao' | 'revisao' | 'locId' | 'location' | 'pixCopiaECola'>): string | null {
    const { calendario, valor } = body;
    if (body.chave !== pixKey) return 'A chave não pertence ao usuário recebedor.';
    if (calendario.dataDeVencimento < dayOf(pspNow())) return 'A data de vencimento é anterior à data de criação da cobrança.';
    if ((calendario.validadeAposVencimento ?? 30) < 0) return 'A validade após o vencimento é menor do que zero.';
    const original = cents(valor.original);
    if (original === 0) return 'O valor original é zero.';
    // At or above the original (an amount) or 100% (a percentage).
    const whole = (valorPerc: string, percent: boolean) => cents(valorPerc) >= (percent ? 10_000 : original);
    if (valor.abatimento && whole(valor.abatimento.valorPerc, valor.abatimento.modalidade === 2)) return 'O abatimento é maior ou igual ao valor da cobrança.';
    const desconto = valor.desconto;
    if (desconto) {
      const fixed = desconto.modalidade <= 2;
      if (fixed && (desconto.valorPerc !== undefined || !desconto.descontoDataFixa?.length)) return 'Desconto de modalidade 1 ou 2 sem descontoDataFixa.';
      if (!fixed && (desconto.valorPerc === undefined || desconto.descontoDataFixa !== undefined)) return 'Desconto de modalidade 3 a 6 sem valorPerc.';
      const percent = desconto.modalidade === 2 || desconto.modalidade >= 5;
      for (const tier of desconto.descontoDataFixa ?? []) {
        if (tier.data > calendario.dataDeVencimento) return 'Um desconto tem data posterior ao vencimento.';
        if (whole(tier.valorPerc, percent)) return 'Um desconto é maior ou igual ao valor da cobrança.';
      }
      if (desconto.valorPerc !== undefined && whole(desconto.valorPerc, percent)) return 'Um desconto é maior ou igual ao valor da cobrança.';
    }
    return null;
  }

  route('PUT', '/cobv/:txid', { path: '/cobv/{txid}', method: 'put' }, (request) => {
    const { txid } = request.params as { txid: string };
    const body = request.body as Omit<CobV, 'txid' | 'status' | 'criacao' | 'revisao' | 'locId' | 'location' | 'pixCopiaECola'>;
    const existing = cobvs.get(txid);
    if (existing) {
      // The same PUT again: the same charge. The double revises nothing by PUT.
      const same =
        JSON.stringify([existing.calendario, existing.devedor, existing.valor, existing.chave]) ===
        JSON.stringify([body.calendario, body.devedor, body.valor, body.chave]);
      return same ? { status: 201, body: cobvView(existing) } : cobvRefused('A cobrança já existe e a requisição busca alterá-la.');
    }
    const refusal = cobvProblem(body);
    if (refusal) return cobvRefused(refusal);
    const location = `psp.example.com/qr/v2/cobv/${randomBytes(16).toString('hex')}`;
    const cobv: CobV = {
      txid,
      status: 'ATIVA',
      calendario: { dataDeVencimento: body.calendario.dataDeVencimento, validadeAposVencimento: body.calendario.validadeAposVencimento ?? 30 },
      devedor: body.devedor,
      valor: body.valor,
      chave: body.chave,
      criacao: pspNow().toISOString(),
      revisao: 0,
      locId: nextLocId++,
      location,
      // A cobv's code carries no amount: the payer's app reads the day's amount at the location.
      pixCopiaECola: buildDynamicBrCode({ locationUrl: location, merchantName: 'GATEWAY RECEBEDOR', merchantCity: 'SAO PAULO' }),
    };
    cobvs.set(txid, cobv);
    const view = cobvView(cobv);
    tamperWith(view, cobv.valor.original);
    return { status: 201, body: view };
  });

  route('PATCH', '/cobv/:txid', { path: '/cobv/{txid}', method: 'patch' }, (request) => {
    const cobv = cobvs.get((request.params as { txid: string }).txid);
    if (!cobv) return cobvNotFound();
    if (cobv.status !== 'ATIVA') return cobvRefused('A cobrança não está ATIVA.');
    const body = request.body as { status?: string };
    if (body.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') return cobvRefused('A double só remove cobranças.');
    cobv.status = body.status;
    cobv.revisao++;
    return { status: 200, body: cobvView(cobv) };
  });

  route('GET', '/cobv/:txid', { path: '/cobv/{txid}', method: 'get' }, (request) => {
    const cobv = cobvs.get((request.params as { txid: string }).txid);
    if (!cobv) return cobvNotFound();
    const paid = [...received.values()].filter((pix) => pix.txid === cobv.txid);
    return { status: 200, body: { ...cobvView(cobv), ...(paid.length > 0 ? { pix: paid.map(pixView) } : {}) } };
  });

  route('GET', '/pix/:e2eid', { path: '/pix/{e2eid}', method: 'get' }, (request) => {
    const pix = received.get((request.params as { e2eid: string }).e2eid);
    return pix ? { status: 200, body: pixView(pix) } : { status: 404, body: problem(404, 'NaoEncontrado', 'Não Encontrado') };
  });

  route('GET', '/pix', { path: '/pix', method: 'get' }, (request) => {
    const query = request.query as Record<string, string>;
    const inicio = new Date(query.inicio ?? 0).getTime();
    const fim = new Date(query.fim ?? 0).getTime();
    const list = [...received.values()].filter((pix) => new Date(pix.horario).getTime() >= inicio && new Date(pix.horario).getTime() <= fim);
    const page = paginate(list, query);
    return { status: 200, body: { parametros: { inicio: query.inicio, fim: query.fim, paginacao: page.paginacao }, pix: page.items.map(pixView) } };
  });

  route('PUT', '/pix/:e2eid/devolucao/:id', { path: '/pix/{e2eid}/devolucao/{id}', method: 'put' }, async (request) => {
    const { e2eid, id } = request.params as { e2eid: string; id: string };
    count(id, 'puts');
    const body = request.body as { valor: string; natureza?: string };
    const pix = received.get(e2eid);
    if (!pix) return { status: 404, body: problem(404, 'NaoEncontrado', 'Não Encontrado') };
    const existing = pix.devolucoes.find((devolucao) => devolucao.id === id);
    if (existing) return { status: 201, body: existing };
    const lost = await loseAnswer(id, () => {
      const at = nowIso();
      pix.devolucoes.push({
        id,
        rtrId: generateEndToEndId(DOUBLE_ISPB, new Date(), 'D'),
        valor: body.valor,
        natureza: body.natureza ?? 'ORIGINAL',
        status: 'DEVOLVIDO',
        horario: { solicitacao: at, liquidacao: at },
      });
    });
    if (lost) return lost;
    const returned = pix.devolucoes.filter((devolucao) => devolucao.status !== 'NAO_REALIZADO').reduce((sum, devolucao) => sum + cents(devolucao.valor), 0);
    if (returned + cents(body.valor) > cents(pix.valor)) {
      return { status: 400, body: problem(400, 'PixDevolucaoInvalida', 'Devolução inválida.', 'O valor excede o valor devolvível do Pix.') };
    }
    const devolucao: Devolucao = {
      id,
      rtrId: generateEndToEndId(DOUBLE_ISPB, new Date(), 'D'),
      valor: body.valor,
      natureza: body.natureza ?? 'ORIGINAL',
      status: 'EM_PROCESSAMENTO',
      horario: { solicitacao: nowIso() },
    };
    pix.devolucoes.push(devolucao);
    afterAWhile(() => {
      devolucao.status = 'DEVOLVIDO';
      devolucao.horario.liquidacao = nowIso();
      return notify([e2eid], 'once');
    });
    return { status: 201, body: devolucao };
  });

  route('GET', '/pix/:e2eid/devolucao/:id', { path: '/pix/{e2eid}/devolucao/{id}', method: 'get' }, (request) => {
    const { e2eid, id } = request.params as { e2eid: string; id: string };
    queried(id);
    const devolucao = received.get(e2eid)?.devolucoes.find((item) => item.id === id);
    return devolucao ? { status: 200, body: devolucao } : { status: 404, body: problem(404, 'NaoEncontrado', 'Não Encontrado') };
  });

  // Efí's cash-out (not API Pix): PUT /v2/gn/pix/:idEnvio and GET /v2/gn/pix/enviados/id-envio/:idEnvio.
  route('PUT', '/gn/pix/:idEnvio', null, async (request) => {
    const { idEnvio } = request.params as { idEnvio: string };
    count(idEnvio, 'puts');
    const body = request.body as Json;
    const problems = checkEfiSend(idEnvio, body);
    if (problems.length > 0) {
      violations.push(...problems.map((text) => `PUT /gn/pix: ${text}`));
      return { status: 400, body: { nome: 'json_invalido', mensagem: problems.join('; ') } };
    }
    if (sends.has(idEnvio)) return { status: 409, body: { nome: 'id_envio_duplicado', mensagem: 'O idEnvio informado já foi utilizado.' } };
    const favorecido = body.favorecido as { chave: string; cpf?: string; cnpj?: string };
    // Since Res. BCB 501 the DICT answers no holder data for a fraud-marked key: the send is refused.
    if (restrictedKeys.has(favorecido.chave)) {
      return { status: 422, body: { nome: 'chave_com_restricao', mensagem: 'Chave Pix com dados restritos por marcação de fraude.' } };
    }
    const holder = holderOf(favorecido.chave);
    if (!holder) return { status: 404, body: { nome: 'chave_favorecido_nao_encontrada', mensagem: 'A chave informada não foi encontrada.' } };
    const document = favorecido.cpf ?? favorecido.cnpj;
    if (document && document !== (holder.cpf ?? holder.cnpj)) {
      return { status: 400, body: { nome: 'chave_nao_pertence_ao_documento', mensagem: 'O cpf do favorecido é diferente do documento em posse da chave' } };
    }
    const lost = await loseAnswer(idEnvio, () => {
      const at = nowIso();
      sends.set(idEnvio, {
        idEnvio,
        e2eId: generateEndToEndId(DOUBLE_ISPB, new Date()),
        valor: String(body.valor),
        status: 'REALIZADO',
        favorecido: { chave: favorecido.chave, nome: holder.nome },
        solicitacao: at,
        liquidacao: at,
      });
    });
    if (lost) return lost;
    const sent: Send = {
      idEnvio,
      e2eId: generateEndToEndId(DOUBLE_ISPB, new Date()),
      valor: String(body.valor),
      status: 'EM_PROCESSAMENTO',
      favorecido: { chave: favorecido.chave, nome: holder.nome },
      solicitacao: nowIso(),
    };
    sends.set(idEnvio, sent);
    afterAWhile(async () => {
      sent.status = 'REALIZADO';
      sent.liquidacao = nowIso();
    });
    return { status: 201, body: { idEnvio, e2eId: sent.e2eId, valor: sent.valor, horario: { solicitacao: sent.solicitacao }, status: sent.status } };
  });

  // Efí's view of a PIX sent (one by its idEnvio, and each item of the list of a period).
  const sentView = (sent: Send): Json => ({
    endToEndId: sent.e2eId,
    idEnvio: sent.idEnvio,
    valor: sent.valor,
    chave: pixKey,
    status: sent.status,
    horario: { solicitacao: sent.solicitacao, ...(sent.liquidacao ? { liquidacao: sent.liquidacao } : {}) },
    favorecido: { chave: sent.favorecido.chave, identificacao: { nome: sent.favorecido.nome, cpf: '***.456.789-**' } },
  });

  route('GET', '/gn/pix/enviados/id-envio/:idEnvio', null, (request) => {
    const { idEnvio } = request.params as { idEnvio: string };
    queried(idEnvio);
    const sent = sends.get(idEnvio);
    if (!sent) return { status: 404, body: problem(404, 'PixEnviadoNaoEncontrado', 'Pix enviado não encontrado.') };
    return { status: 200, body: sentView(sent) };
  });

  // Efí's list of the PIX sent in a period, by the time each was asked for (horario.solicitacao), paged as API Pix's lists.
  route('GET', '/gn/pix/enviados', null, (request) => {
    const query = request.query as Record<string, string>;
    const problems = checkEfiQuery(query, { required: ['inicio', 'fim'], optional: ['status', 'paginacao.paginaAtual', 'paginacao.itensPorPagina'] });
    if (query.status !== undefined && !['EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO'].includes(query.status)) problems.push('status must be a send status');
    if (problems.length > 0) {
      violations.push(...problems.map((text) => `GET /gn/pix/enviados: ${text}`));
      return { status: 400, body: { nome: 'parametros_invalidos', mensagem: problems.join('; ') } };
    }
    const inicio = Date.parse(String(query.inicio));
    const fim = Date.parse(String(query.fim));
    const list = [...sends.values()].filter((sent) => {
      const at = Date.parse(sent.solicitacao);
      return at >= inicio && at <= fim && (!query.status || sent.status === query.status);
    });
    const page = paginate(list, query);
    return { status: 200, body: { parametros: { inicio: query.inicio, fim: query.fim, paginacao: page.paginacao }, pix: page.items.map(sentView) } };
  });

  // Pix Automático (rec, solicrec, cobr), each request and answer judged by BCB's schemas as the rest.
  const recs = new Map<string, Rec>();
  const cobrs = new Map<string, CobRecorrente>();
  const RECEBEDOR_REC = { cnpj: RECEBEDOR.cnpj, nome: RECEBEDOR.nome };
  const sequence = () =>
    randomBytes(8)
      .toString('base64url')
      .replace(/[^a-zA-Z0-9]/g, 'x')
      .slice(0, 11)
      .padEnd(11, 'x');
  const compactDay = () => dayOf(pspNow()).replaceAll('-', '');
  const recNotFound = () => ({ status: 404, body: problem(404, 'NaoEncontrado', 'Recorrência não encontrada.') });
  const recRefused = (detail: string) => ({ status: 400, body: problem(400, 'RecOperacaoInvalida', 'Recorrência inválida.', detail) });
  const cobrRefused = (detail: string) => ({ status: 400, body: problem(400, 'CobROperacaoInvalida', 'Cobrança inválida.', detail) });
  const recView = (rec: Rec): Json => ({
    idRec: rec.idRec,
    vinculo: rec.vinculo,
    calendario: rec.calendario,
    ...(rec.valor ? { valor: rec.valor } : {}),
    recebedor: RECEBEDOR_REC,
    ...(rec.status === 'APROVADA' && rec.solicitacao
      ? (() => {
          const destinatario = rec.solicitacao.body.destinatario as Json;
          const document = destinatario.cpf ? { cpf: destinatario.cpf } : { cnpj: destinatario.cnpj };
          return { pagador: { ispbParticipante: destinatario.ispbParticipante, ...document } };
        })()
      : {}),
    status: rec.status,
    politicaRetentativa: rec.politicaRetentativa,
    atualizacao: rec.atualizacao,
    ...(rec.encerramento ? { encerramento: rec.encerramento } : {}),
    ativacao: { tipoJornada: rec.status === 'APROVADA' ? 'JORNADA_1' : 'AGUARDANDO_DEFINICAO' },
  });
  const cobrView = (cobr: CobRecorrente): Json => {
    const body = cobr.body;
    return {
      idRec: cobr.idRec,
      txid: cobr.txid,
      calendario: { criacao: cobr.criacao, ...(body.calendario as Json) },
      valor: body.valor,
      ajusteDiaUtil: body.ajusteDiaUtil,
      // CobRGerada's recebedor is both the account of the PUT (CobRBase) and the company (PessoaJuridicaRecorrencia).
      recebedor: { ...(body.recebedor as Json), ...RECEBEDOR_REC },
      status: cobr.status,
      politicaRetentativa: recs.get(cobr.idRec)?.politicaRetentativa ?? 'NAO_PERMITE',
      atualizacao: cobr.atualizacao,
      ...(cobr.encerramento ? { encerramento: cobr.encerramento } : {}),
      ...(cobr.tentativas.length > 0 ? { tentativas: cobr.tentativas } : {}),
    };
  };
  const cobrNotificationOf = (cobr: CobRecorrente): Json => {
    const { idRec, txid, status, atualizacao, tentativas } = cobrView(cobr);
    return { idRec, txid, status, atualizacao, ...(tentativas ? { tentativas } : {}) };
  };

  let recurrenceCallbacksLost = false;
  async function notifyKind(kind: 'rec' | 'cobr', body: Json): Promise<void> {
    for (const text of contract.checkNotification(body, kind)) violations.push(`notification ${kind}: ${text}`);
    if (recurrenceCallbacksLost) return;
    const status = await post(body, callbackAgent, kind);
    if (status !== 200) violations.push(`notification ${kind} answered ${status}`);
  }
  const notifyRec = (rec: Rec) =>
    notifyKind('rec', {
      recs: [{ idRec: rec.idRec, status: rec.status, atualizacao: rec.atualizacao, ...(rec.encerramento ? { encerramento: rec.encerramento } : {}) }],
    });

  route('POST', '/rec', { path: '/rec', method: 'post' }, (request) => {
    const body = request.body as Json;
    const calendario = body.calendario as { dataInicial: string; dataFinal?: string };
    if (calendario.dataInicial < dayOf(pspNow())) return recRefused('A data inicial é anterior à data de criação da recorrência.');
    if (calendario.dataFinal !== undefined && calendario.dataFinal < calendario.dataInicial) return recRefused('A data final é anterior à data inicial.');
    const valor = body.valor as Json | undefined;
    if (valor?.valorRec !== undefined && valor.valorMinimoRecebedor !== undefined) return recRefused('Valor fixo e valor mínimo não podem coexistir.');
    const politicaRetentativa = String(body.politicaRetentativa);
    const idRec = `R${politicaRetentativa === 'PERMITE_3R_7D' ? 'R' : 'N'}${DOUBLE_ISPB}${compactDay()}${sequence()}`;
    const rec: Rec = {
      idRec,
      status: 'CRIADA',
      vinculo: body.vinculo as Json,
      calendario: body.calendario as Json,
      ...(valor ? { valor } : {}),
      politicaRetentativa,
      atualizacao: [{ status: 'CRIADA', data: nowIso() }],
      createdAt: pspNow(),
    };
    recs.set(idRec, rec);
    return { status: 201, body: recView(rec) };
  });

  route('GET', '/rec/:idRec', { path: '/rec/{idRec}', method: 'get' }, (request) => {
    const rec = recs.get((request.params as { idRec: string }).idRec);
    return rec ? { status: 200, body: recView(rec) } : recNotFound();
  });

  /** A list's creation window (`inicio`, `fim`: BCB's Inicio and Fim filter by the date of creation). */
  const createdWithin = (createdAt: Date, query: Record<string, string>) =>
    createdAt.getTime() >= new Date(String(query.inicio)).getTime() && createdAt.getTime() <= new Date(String(query.fim)).getTime();

  route('GET', '/rec', { path: '/rec', method: 'get' }, (request) => {
    const query = request.query as Record<string, string>;
    const list = [...recs.values()].filter((rec) => (!query.status || rec.status === query.status) && createdWithin(rec.createdAt, query));
    const page = paginate(list, query);
    return {
      status: 200,
      body: {
        parametros: { inicio: query.inicio, fim: query.fim, ...(query.status ? { status: query.status } : {}), paginacao: page.paginacao },
        recs: page.items.map(recView),
      },
    };
  });

  route('GET', '/cobr', { path: '/cobr', method: 'get' }, (request) => {
    const query = request.query as Record<string, string>;
    const list = [...cobrs.values()].filter((cobr) => (!query.status || cobr.status === query.status) && createdWithin(cobr.createdAt, query));
    const page = paginate(list, query);
    return {
      status: 200,
      body: {
        parametros: { inicio: query.inicio, fim: query.fim, ...(query.status ? { status: query.status } : {}), paginacao: page.paginacao },
        cobsr: page.items.map(cobrView),
      },
    };
  });

  route('PATCH', '/rec/:idRec', { path: '/rec/{idRec}', method: 'patch' }, (request) => {
    const rec = recs.get((request.params as { idRec: string }).idRec);
    if (!rec) return recNotFound();
    const body = request.body as Json;
    if (body.status !== 'CANCELADA') return recRefused('Só o cancelamento é revisado aqui.');
    if (rec.status !== 'CRIADA' && rec.status !== 'APROVADA') return recRefused(`A recorrência está ${rec.status}.`);
    rec.status = 'CANCELADA';
    rec.atualizacao.push({ status: 'CANCELADA', data: nowIso() });
    rec.encerramento = { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'Cancelada pelo usuário recebedor.' } };
    for (const cobr of cobrs.values()) {
      if (cobr.idRec === rec.idRec && cobr.status === 'ATIVA') cobr.status = 'CANCELADA';
    }
    return { status: 200, body: recView(rec) };
  });

  route('POST', '/solicrec', { path: '/solicrec', method: 'post' }, (request) => {
    const body = request.body as Json;
    const rec = recs.get(String(body.idRec));
    if (!rec) return { status: 404, body: problem(404, 'NaoEncontrado', 'Recorrência não encontrada.') };
    if (rec.status !== 'CRIADA' || rec.solicitacao)
      return { status: 400, body: problem(400, 'SolicRecOperacaoInvalida', 'Solicitação inválida.', 'A recorrência já tem solicitação ou não está CRIADA.') };
    const devedor = (rec.vinculo.devedor ?? {}) as Json;
    const destinatario = body.destinatario as Json;
    if ((destinatario.cpf ?? destinatario.cnpj) !== (devedor.cpf ?? devedor.cnpj))
      return { status: 400, body: problem(400, 'SolicRecOperacaoInvalida', 'Solicitação inválida.', 'O destinatário não é o devedor da recorrência.') };
    const solicitacao = {
      idSolicRec: `SC${DOUBLE_ISPB}${compactDay()}${sequence()}`,
      body,
      status: 'ENVIADA',
      atualizacao: [
        { status: 'CRIADA', data: nowIso() },
        { status: 'ENVIADA', data: nowIso() },
      ],
    };
    rec.solicitacao = solicitacao;
    return {
      status: 201,
      body: {
        idSolicRec: solicitacao.idSolicRec,
        idRec: rec.idRec,
        calendario: body.calendario,
        destinatario,
        status: solicitacao.status,
        atualizacao: solicitacao.atualizacao,
      },
    };
  });

  route('PUT', '/cobr/:txid', { path: '/cobr/{txid}', method: 'put' }, (request) => {
    const { txid } = request.params as { txid: string };
    const body = request.body as Json;
    const existing = cobrs.get(txid);
    // BCB (CobROperacaoInvalida): a PUT is not idempotent, the txid of a cobr is taken once.
    if (existing) return cobrRefused('O campo cobr.txid encontra-se em uso.');
    const rec = recs.get(String(body.idRec));
    if (!rec) return cobrRefused('Recorrência inexistente.');
    if (rec.status !== 'APROVADA') return cobrRefused(`A recorrência está ${rec.status}.`);
    const due = String((body.calendario as Json).dataDeVencimento);
    // BCB: a cobr is created from 10 to 2 days before its date.
    if (due < dayAfterDay(dayOf(pspNow()), 2) || due > dayAfterDay(dayOf(pspNow()), 10))
      return cobrRefused('Data de vencimento fora da janela de 2 a 10 dias.');
    if ([...cobrs.values()].some((other) => other.idRec === rec.idRec && String((other.body.calendario as Json).dataDeVencimento) === due))
      return cobrRefused('Já existe cobrança desta recorrência nesta data.');
    const valorRec = rec.valor?.valorRec;
    if (valorRec !== undefined && valorRec !== (body.valor as Json).original) return cobrRefused('O valor difere do valor fixo da recorrência.');
    const cobr: CobRecorrente = {
      txid,
      idRec: rec.idRec,
      status: 'ATIVA',
      body,
      criacao: dayOf(pspNow()),
      createdAt: pspNow(),
      atualizacao: [{ status: 'ATIVA', data: nowIso() }],
      tentativas: [],
    };
    cobrs.set(txid, cobr);
    return { status: 201, body: cobrView(cobr) };
  });

  route('GET', '/cobr/:txid', { path: '/cobr/{txid}', method: 'get' }, (request) => {
    const cobr = cobrs.get((request.params as { txid: string }).txid);
    return cobr ? { status: 200, body: cobrView(cobr) } : { status: 404, body: problem(404, 'NaoEncontrado', 'Cobrança não encontrada.') };
  });

  route('PATCH', '/cobr/:txid', { path: '/cobr/{txid}', method: 'patch' }, (request) => {
    const cobr = cobrs.get((request.params as { txid: string }).txid);
    if (!cobr) return { status: 404, body: problem(404, 'NaoEncontrado', 'Cobrança não encontrada.') };
    if (cobr.status !== 'ATIVA') return cobrRefused(`A cobrança está ${cobr.status}.`);
    // BCB: not on or after the day of its first attempt.
    if (dayOf(pspNow()) >= String((cobr.body.calendario as Json).dataDeVencimento)) return cobrRefused('A cobrança não pode mais ser cancelada.');
    cobr.status = 'CANCELADA';
    cobr.atualizacao.push({ status: 'CANCELADA', data: nowIso() });
    cobr.encerramento = { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'Cancelada pelo usuário recebedor.' } };
    return { status: 200, body: cobrView(cobr) };
  });

  route('POST', '/cobr/:txid/retentativa/:data', { path: '/cobr/{txid}/retentativa/{data}', method: 'post' }, (request) => {
    const { txid, data } = request.params as { txid: string; data: string };
    const cobr = cobrs.get(txid);
    if (!cobr) return { status: 404, body: problem(404, 'NaoEncontrado', 'Cobrança não encontrada.') };
    const rec = recs.get(cobr.idRec);
    const due = String((cobr.body.calendario as Json).dataDeVencimento);
    const retries = cobr.tentativas.filter((tentativa) => tentativa.tipo === 'RIFL').length;
    if (cobr.status !== 'ATIVA' || rec?.politicaRetentativa !== 'PERMITE_3R_7D' || retries >= 3 || data <= dayOf(pspNow()) || data > dayAfterDay(due, 7))
      return { status: 400, body: problem(400, 'RequisicaoInvalidaCobRTentativa', 'Retentativa inválida.') };
    cobr.tentativas.push({
      dataLiquidacao: data,
      tipo: 'RIFL',
      status: 'SOLICITADA',
      endToEndId: generateEndToEndId(DOUBLE_ISPB, new Date()),
      atualizacao: [{ status: 'SOLICITADA', data: nowIso() }],
    });
    return { status: 201, body: cobrView(cobr) };
  });

  const startingBalanceCents = options.startingBalanceCents ?? 100_000_000;
  function balanceCents(): number {
    let balance = startingBalanceCents;
    for (const pix of received.values()) {
      balance += cents(pix.valor);
      for (const devolucao of pix.devolucoes) if (devolucao.status === 'DEVOLVIDO') balance -= cents(devolucao.valor);
    }
    for (const sent of sends.values()) if (sent.status === 'REALIZADO') balance -= cents(sent.valor);
    return balance;
  }

  // Efí's balance of the account (GET /v2/gn/saldo); `bloqueios=true` adds the amounts held (none at the double).
  route('GET', '/gn/saldo', null, (request) => {
    const query = request.query as Record<string, string>;
    const problems = checkEfiQuery(query, { required: [], optional: ['bloqueios'] });
    if (query.bloqueios !== undefined && !['true', 'false'].includes(query.bloqueios)) problems.push('bloqueios must be true or false');
    if (problems.length > 0) {
      violations.push(...problems.map((text) => `GET /gn/saldo: ${text}`));
      return { status: 400, body: { nome: 'parametros_invalidos', mensagem: problems.join('; ') } };
    }
    const saldo = signedMoney(balanceCents());
    return { status: 200, body: query.bloqueios === 'true' ? { saldo, bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' } } : { saldo } };
  });

  /** The try-out's automatic settlement (none in the tests: they decide each outcome). */
  function afterAWhile(settle: () => Promise<void>): void {
    if (options.autoSettleMs === undefined) return;
    setTimeout(() => void settle().catch(() => undefined), options.autoSettleMs).unref();
  }

  function holderOf(key: string): { nome: string; cpf?: string; cnpj?: string } | undefined {
    if (/^\d{11}$/.test(key)) return keys.get(key) ?? { nome: 'Titular CPF', cpf: key };
    if (/^[0-9A-Z]{12}\d{2}$/.test(key)) return keys.get(key) ?? { nome: 'Titular CNPJ', cnpj: key };
    return keys.get(key);
  }

  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const origin = `https://127.0.0.1:${address.port}`;

  const callbackAgent = new Agent({
    connect: { cert: readFileSync(certificates.pspClientCert), key: readFileSync(certificates.pspClientKey), ca: readFileSync(certificates.caCert) },
  });
  const strangerAgent = new Agent({
    connect: { cert: readFileSync(certificates.strangerClientCert), key: readFileSync(certificates.strangerClientKey), ca: readFileSync(certificates.caCert) },
  });

  async function post(body: unknown, agent: Agent, kind: 'pix' | 'rec' | 'cobr' = 'pix'): Promise<number> {
    if (!webhookUrl) return 0;
    const response = await send(`${webhookUrl}/${kind}`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.body.dump();
    return response.statusCode;
  }

  async function notify(endToEndIds: string[], how: Notify): Promise<void> {
    if (how === 'none') return;
    if (how === 'batched' || how === 'late') {
      held.push(...endToEndIds);
      return;
    }
    const body = { pix: endToEndIds.map((id) => pixView(received.get(id) as ReceivedPix)) };
    for (const text of contract.checkNotification(body)) violations.push(`notification: ${text}`);
    const status = await post(body, callbackAgent);
    if (status !== 200) violations.push(`notification answered ${status}`);
    if (how === 'twice') await post(body, callbackAgent);
  }

  return {
    baseUrl: origin + BASE_PATH,
    tokenUrl: `${origin}/oauth/token`,
    violations,
    calls,
    tokensIssued: () => calls.filter((call) => call === 'POST /oauth/token').length,
    cob: (txid) => cobs.get(txid),
    cobv: (txid) => cobvs.get(txid),
    pix: (endToEndId) => received.get(endToEndId),
    pixOfCharge: (txid) => [...received.values()].find((pix) => pix.txid === txid),
    send: (idEnvio) => sends.get(idEnvio),
    loseRecurrenceCallbacks(lost) {
      recurrenceCallbacksLost = lost;
    },
    setWebhook(url) {
      webhookUrl = url;
    },
    async pay(txid, payOptions = {}) {
      const cob = cobs.get(txid);
      if (!cob) throw new Error(`no charge ${txid} at the PSP`);
      const pix: ReceivedPix = {
        endToEndId: generateEndToEndId(DOUBLE_ISPB, new Date()),
        txid,
        valor: payOptions.amountCents === undefined ? cob.valor : money(payOptions.amountCents),
        chave: cob.chave,
        horario: nowIso(),
        devolucoes: [],
        payer: payOptions.payer ?? DEFAULT_PAYER,
      };
      received.set(pix.endToEndId, pix);
      if (cob.status === 'ATIVA') cob.status = 'CONCLUIDA';
      await notify([pix.endToEndId], payOptions.notify ?? 'once');
      return pix.endToEndId;
    },
    async payCobv(txid, payOptions) {
      const cobv = cobvs.get(txid);
      if (!cobv) throw new Error(`no cobv ${txid} at the PSP`);
      const at = payOptions.at ?? new Date();
      const parts = payOptions.parts;
      const pix: ReceivedPix = {
        endToEndId: generateEndToEndId(DOUBLE_ISPB, at),
        txid,
        valor: money(payOptions.amountCents),
        chave: cobv.chave,
        horario: at.toISOString(),
        devolucoes: [],
        payer: payOptions.payer ?? DEFAULT_PAYER,
        ...(parts
          ? {
              componentesValor: Object.fromEntries(
                Object.entries(parts).flatMap(([name, value]) => (value === undefined ? [] : [[name, { valor: money(value) }]])),
              ),
            }
          : {}),
      };
      received.set(pix.endToEndId, pix);
      if (cobv.status === 'ATIVA') cobv.status = 'CONCLUIDA';
      await notify([pix.endToEndId], payOptions.notify ?? 'once');
      return pix.endToEndId;
    },
    async payStatic(txid, payOptions) {
      const pix: ReceivedPix = {
        endToEndId: generateEndToEndId(DOUBLE_ISPB, new Date()),
        txid,
        valor: money(payOptions.amountCents),
        chave: pixKey,
        horario: nowIso(),
        devolucoes: [],
        payer: payOptions.payer ?? DEFAULT_PAYER,
      };
      received.set(pix.endToEndId, pix);
      await notify([pix.endToEndId], payOptions.notify ?? 'once');
      return pix.endToEndId;
    },
    removeCharge(txid) {
      const charge = cobs.get(txid) ?? cobvs.get(txid);
      if (!charge) throw new Error(`no charge ${txid} at the PSP`);
      charge.status = 'REMOVIDA_PELO_PSP';
    },
    async settleRefund(endToEndId, id, outcome, how = 'once') {
      const devolucao = received.get(endToEndId)?.devolucoes.find((item) => item.id === id);
      if (!devolucao) throw new Error(`no devolução ${id} of ${endToEndId}`);
      devolucao.status = outcome;
      if (outcome === 'DEVOLVIDO') devolucao.horario.liquidacao = nowIso();
      else devolucao.motivo = 'Conta do pagador encerrada.';
      await notify([endToEndId], how);
    },
    async injectMed(endToEndId, amountCents, natureza, how = 'once') {
      const pix = received.get(endToEndId);
      if (!pix) throw new Error(`no PIX ${endToEndId}`);
      const devolucao: Devolucao = {
        id: `MED${randomBytes(8).toString('hex')}`,
        rtrId: generateEndToEndId(DOUBLE_ISPB, new Date(), 'D'),
        valor: money(amountCents),
        natureza,
        status: 'DEVOLVIDO',
        horario: { solicitacao: nowIso(), liquidacao: nowIso() },
      };
      pix.devolucoes.push(devolucao);
      await notify([endToEndId], how);
      return devolucao.rtrId;
    },
    settleSend(idEnvio, outcome) {
      const sent = sends.get(idEnvio);
      if (!sent) throw new Error(`no send ${idEnvio}`);
      sent.status = outcome;
      if (outcome === 'REALIZADO') sent.liquidacao = nowIso();
    },
    balanceCents,
    alterPix(endToEndId, changes) {
      const pix = received.get(endToEndId);
      if (!pix) throw new Error(`no PIX ${endToEndId}`);
      if (changes.valor !== undefined) pix.valor = changes.valor;
    },
    alterDevolucao(endToEndId, id, changes) {
      const devolucao = received.get(endToEndId)?.devolucoes.find((item) => item.id === id);
      if (!devolucao) throw new Error(`no devolução ${id} of ${endToEndId}`);
      if (changes.valor !== undefined) devolucao.valor = changes.valor;
      if (changes.status !== undefined) devolucao.status = changes.status;
    },
    alterSend(idEnvio, changes) {
      const sent = sends.get(idEnvio);
      if (!sent) throw new Error(`no send ${idEnvio}`);
      if (changes.valor !== undefined) sent.valor = changes.valor;
      if (changes.status !== undefined) sent.status = changes.status;
      if (sent.status === 'REALIZADO') sent.liquidacao ??= nowIso();
    },
    dropPix(endToEndId) {
      if (!received.delete(endToEndId)) throw new Error(`no PIX ${endToEndId}`);
    },
    dropSend(idEnvio) {
      if (!sends.delete(idEnvio)) throw new Error(`no send ${idEnvio}`);
    },
    receiveStray({ amountCents, at = new Date() }) {
      const pix: ReceivedPix = {
        endToEndId: generateEndToEndId(DOUBLE_ISPB, at),
        // 30 characters: a txid of the payer's choosing, never one of the gateway's (32).
        txid: randomBytes(15).toString('hex'),
        valor: money(amountCents),
        chave: pixKey,
        horario: at.toISOString(),
        devolucoes: [],
        payer: DEFAULT_PAYER,
      };
      received.set(pix.endToEndId, pix);
      return pix.endToEndId;
    },
    recordStraySend({ idEnvio, amountCents, status = 'REALIZADO', at = new Date() }) {
      if (sends.has(idEnvio)) throw new Error(`send ${idEnvio} exists`);
      sends.set(idEnvio, {
        idEnvio,
        e2eId: generateEndToEndId(DOUBLE_ISPB, at),
        valor: money(amountCents),
        status,
        favorecido: { chave: '52998224725', nome: 'Titular CPF' },
        solicitacao: at.toISOString(),
        ...(status === 'REALIZADO' ? { liquidacao: at.toISOString() } : {}),
      });
    },
    restrictKey(key) {
      restrictedKeys.add(key);
    },
    registerKey(key, holder) {
      keys.set(key, holder);
    },
    tamperNextBrCode(how) {
      tamper = how;
    },
    revokeTokens() {
      tokens.clear();
    },
    unauthorizedNext(count) {
      unauthorized = count;
    },
    failNext(count) {
      failures = count;
    },
    failNextOf(operation) {
      failOn = operation;
    },
    loseNextAnswersOf(operation, count = 1) {
      losing = { operation, count };
    },
    beforeNextAnswerOf(operation, hook) {
      before = { operation, hook };
    },
    slowNext(count, ms) {
      slow = { count, ms };
    },
    loseNextSendAnswer(fault) {
      armedLoss = fault;
    },
    attemptsOf: (id) => attempts.get(id) ?? { puts: 0, gets: 0 },
    async flush() {
      const ids = held.splice(0);
      if (ids.length > 0) await notify([...new Set(ids)], 'once');
    },
    rec: (idRec) => recs.get(idRec),
    cobr: (txid) => cobrs.get(txid),
    async answerRec(idRec, status) {
      const rec = recs.get(idRec);
      if (!rec?.solicitacao || rec.status !== 'CRIADA') throw new Error(`no recurrence ${idRec} awaiting its payer`);
      rec.status = status;
      rec.atualizacao.push({ status, data: nowIso() });
      rec.solicitacao.status = status === 'APROVADA' ? 'ACEITA' : status;
      if (status === 'REJEITADA') rec.encerramento = { rejeicao: { codigo: 'AP13', descricao: 'Rejeitada pelo usuário pagador.' } };
      await notifyRec(rec);
    },
    async notifyRecOf(idRec) {
      const rec = recs.get(idRec);
      if (!rec) throw new Error(`no recurrence ${idRec}`);
      await notifyRec(rec);
    },
    async notifyCobrOf(txid) {
      const cobr = cobrs.get(txid);
      if (!cobr) throw new Error(`no cobr ${txid}`);
      await notifyKind('cobr', { cobsr: [cobrNotificationOf(cobr)] });
    },
    async payerCancelRec(idRec) {
      const rec = recs.get(idRec);
      if (rec?.status !== 'APROVADA') throw new Error(`no approved recurrence ${idRec}`);
      rec.status = 'CANCELADA';
      rec.atualizacao.push({ status: 'CANCELADA', data: nowIso() });
      rec.encerramento = { cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'SLDB', descricao: 'Cancelada pelo usuário pagador.' } };
      for (const cobr of cobrs.values()) if (cobr.idRec === idRec && cobr.status === 'ATIVA') cobr.status = 'CANCELADA';
      await notifyRec(rec);
    },
    async debitCobr(txid, outcome) {
      const cobr = cobrs.get(txid);
      if (cobr?.status !== 'ATIVA') throw new Error(`no active cobr ${txid}`);
      // The attempt of the day: a retry asked for (SOLICITADA), or the first one on the due date.
      let attempt = cobr.tentativas.find((tentativa) => tentativa.status === 'SOLICITADA' || tentativa.status === 'AGENDADA');
      if (!attempt) {
        attempt = {
          dataLiquidacao: String((cobr.body.calendario as Json).dataDeVencimento),
          tipo: 'AGND',
          status: 'AGENDADA',
          endToEndId: generateEndToEndId(DOUBLE_ISPB, new Date()),
          atualizacao: [{ status: 'AGENDADA', data: nowIso() }],
        };
        cobr.tentativas.push(attempt);
      }
      attempt.status = outcome === 'paid' ? 'PAGA' : outcome === 'attempt_expired' ? 'EXPIRADA' : 'REJEITADA';
      attempt.atualizacao.push({ status: attempt.status, data: nowIso() });
      if (outcome === 'attempt_failed' || outcome === 'rejected') attempt.rejeicao = { codigo: 'AM02', descricao: 'Saldo insuficiente.' };
      if (outcome === 'paid') cobr.status = 'CONCLUIDA';
      if (outcome === 'rejected') {
        cobr.status = 'REJEITADA';
        cobr.encerramento = { rejeicao: { codigo: 'AM02', descricao: 'Saldo insuficiente.' } };
      }
      if (cobr.status !== 'ATIVA') cobr.atualizacao.push({ status: cobr.status, data: nowIso() });
      await notifyKind('cobr', { cobsr: [cobrNotificationOf(cobr)] });
      return attempt.endToEndId;
    },
    notifyRaw: (body, rawOptions = {}) => post(body, rawOptions.stranger ? strangerAgent : callbackAgent),
    async close() {
      await Promise.all([callbackAgent.close(), strangerAgent.close()]);
      await app.close();
    },
  };
}

/** The day `days` after `day` (AAAA-MM-DD, calendar days). */
function dayAfterDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** A BR Code with an amount field (54) before the country (58), its CRC made again. */
function withAmount(code: string, valor: string): string {
  const withoutCrc = code.slice(0, -4).replace('5802BR', `54${String(valor.length).padStart(2, '0')}${valor}5802BR`);
  return withoutCrc + crc16CcittFalse(withoutCrc);
}

function paginate<T>(list: T[], query: Record<string, string>) {
  const size = Number(query['paginacao.itensPorPagina'] ?? 100);
  const current = Number(query['paginacao.paginaAtual'] ?? 0);
  return {
    items: list.slice(current * size, (current + 1) * size),
    paginacao: {
      paginaAtual: current,
      itensPorPagina: size,
      quantidadeDePaginas: Math.max(1, Math.ceil(list.length / size)),
      quantidadeTotalDeItens: list.length,
    },
  };
}

/** Efí's query string of a GET: the parameters it requires (inicio/fim as RFC 3339 instants), and no others than those it publishes. */
function checkEfiQuery(query: Record<string, string>, allowed: { required: string[]; optional: string[] }): string[] {
  const problems: string[] = [];
  for (const name of allowed.required) if (query[name] === undefined) problems.push(`${name} required`);
  for (const name of ['inicio', 'fim']) {
    const value = query[name];
    if (value !== undefined && !(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value))))
      problems.push(`${name} must be an RFC 3339 date-time`);
  }
  for (const name of ['paginacao.paginaAtual', 'paginacao.itensPorPagina']) {
    const value = query[name];
    if (value !== undefined && !/^\d+$/.test(value)) problems.push(`${name} must be a whole number`);
    else if (name === 'paginacao.itensPorPagina' && value !== undefined && Number(value) < 1) problems.push(`${name} must be at least 1`);
  }
  const extra = Object.keys(query).filter((name) => !allowed.required.includes(name) && !allowed.optional.includes(name));
  if (extra.length > 0) problems.push(`unknown parameters ${extra.join(', ')}`);
  return problems;
}

/** Efí's published send body: valor "0.00", pagador.chave, favorecido.chave (+ cpf or cnpj), idEnvio [a-zA-Z0-9]{1,35}. */
function checkEfiSend(idEnvio: string, body: Json): string[] {
  const problems: string[] = [];
  if (!/^[a-zA-Z0-9]{1,35}$/.test(idEnvio)) problems.push('idEnvio must match [a-zA-Z0-9]{1,35}');
  if (typeof body.valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(body.valor)) problems.push('valor must be "0.00"');
  const pagador = body.pagador as Json | undefined;
  if (typeof pagador?.chave !== 'string') problems.push('pagador.chave required');
  const favorecido = body.favorecido as Json | undefined;
  if (typeof favorecido?.chave !== 'string') problems.push('favorecido.chave required');
  if (favorecido?.cpf !== undefined && !(typeof favorecido.cpf === 'string' && /^\d{11}$/.test(favorecido.cpf)))
    problems.push('favorecido.cpf must be 11 digits');
  // A CNPJ is numeric or alphanumeric since July 2026 (IN RFB 2.229/2024): 12 of [0-9A-Z], 2 check digits.
  if (favorecido?.cnpj !== undefined && !(typeof favorecido.cnpj === 'string' && /^[0-9A-Z]{12}\d{2}$/.test(favorecido.cnpj)))
    problems.push('favorecido.cnpj must be 14 characters of a CNPJ');
  const extra = Object.keys(body).filter((key) => !['valor', 'pagador', 'favorecido'].includes(key));
  if (extra.length > 0) problems.push(`unknown fields ${extra.join(', ')}`);
  return problems;
}
