import { z } from 'zod';
import { parseBrCodeFields } from '../../pix/brcode.js';
import { crc16CcittFalse } from '../../pix/crc16.js';
import { hundredthsOf, type DueTerms, type DueValue } from '../../pix/dueAmount.js';
import { decimalOf } from '../../pix/money.js';
import { txidOf } from '../../pix/txid.js';
import type { Holder, Party } from '../../platform/schema.js';
import type { ChargeRequest, RefundOutcome } from '../provider.js';

/**
 * What the adapter reads of the PSP's answers (API Pix 2.9.0 and Efí's cash-out), checked before
 * use: a PSP's answer is input like any other. Fields the gateway does not use are not listed.
 */

const money = z.string().regex(/^\d{1,10}\.\d{2}$/);
const endToEndId = z.string().regex(/^[a-zA-Z0-9]{32}$/);

export const createdCobSchema = z.object({
  txid: z.string(),
  status: z.string(),
  location: z.string().min(1).max(77),
  pixCopiaECola: z.string().min(1).max(512),
  valor: z.object({ original: money }),
});

export const cobSchema = z.object({ txid: z.string(), status: z.string() });

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
/** A cobv's part: its modality (1 to `max`) and `valorPerc`, an amount or a percentage, both "0.00". */
const modality = (max: number) => z.object({ modalidade: z.number().int().min(1).max(max), valorPerc: money });

/** API Pix `CobVSolicitada` (`PUT /cobv/{txid}`), with the fields the gateway sends: each body is checked against it before it leaves. */
const cobvRequestSchema = z.object({
  calendario: z.object({ dataDeVencimento: day, validadeAposVencimento: z.number().int().min(0) }),
  devedor: z.union([
    z.object({ cpf: z.string().regex(/^\d{11}$/), nome: z.string().min(1).max(200) }),
    z.object({ cnpj: z.string().regex(/^[0-9A-Z]{14}$/), nome: z.string().min(1).max(200) }),
  ]),
  valor: z.object({
    original: money,
    multa: modality(2).optional(),
    juros: modality(8).optional(),
    abatimento: modality(2).optional(),
    desconto: z
      .union([
        z.object({
          modalidade: z.number().int().min(1).max(2),
          descontoDataFixa: z
            .array(z.object({ data: day, valorPerc: money }))
            .min(1)
            .max(3),
        }),
        z.object({ modalidade: z.number().int().min(3).max(6), valorPerc: money }),
      ])
      .optional(),
  }),
  chave: z.string().min(1).max(77),
});
type CobVSolicitada = z.infer<typeof cobvRequestSchema>;

/** API Pix `CobVGerada`: what the adapter checks of a registered cobv. */
export const createdCobvSchema = z.object({
  txid: z.string(),
  status: z.string(),
  calendario: z.object({ dataDeVencimento: z.string() }),
  // Required by CobVGerada; BCB's own example gives it only in `loc`.
  location: z.string().min(1).max(77).optional(),
  loc: z.object({ location: z.string().min(1).max(77) }).optional(),
  pixCopiaECola: z.string().min(1).max(512),
  valor: z.object({ original: money }),
});

export const devolucaoSchema = z.object({
  id: z.string(),
  rtrId: endToEndId,
  valor: money,
  natureza: z.string().optional(),
  status: z.enum(['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO']),
  motivo: z.string().optional(),
});
export type Devolucao = z.infer<typeof devolucaoSchema>;

/** Efí's extension on a received PIX: who paid (name, document, the payer bank's ISPB). */
const payerExtension = z
  .object({
    pagador: z
      .object({
        nome: z.string().min(1),
        cpf: z
          .string()
          .regex(/^\d{11}$/)
          .optional(),
        // Numeric or alphanumeric (IN RFB 2.229/2024), as API Pix's own CNPJ pattern.
        cnpj: z
          .string()
          .regex(/^[0-9A-Z]{14}$/)
          .optional(),
        codigoBanco: z.string().optional(),
      })
      .optional(),
  })
  .optional();

export const pixSchema = z.object({
  endToEndId,
  txid: z.string().optional(),
  valor: money,
  horario: z.string(),
  devolucoes: z.array(devolucaoSchema).optional(),
  gnExtras: payerExtension.catch(undefined),
});
export type Pix = z.infer<typeof pixSchema>;

const paginationSchema = z.object({ paginaAtual: z.number().int(), quantidadeDePaginas: z.number().int() });
export const pixPageSchema = z.object({ parametros: z.object({ paginacao: paginationSchema }), pix: z.array(pixSchema).optional() });
export const cobPageSchema = z.object({ parametros: z.object({ paginacao: paginationSchema }), cobs: z.array(cobSchema) });

/** The PSP's notification body: only the end-to-end ids are used (each PIX is read back). */
export const notificationSchema = z.object({ pix: z.array(z.object({ endToEndId })).max(1000) });

/** Efí `GET /v2/gn/saldo`: the account's balance. */
export const balanceSchema = z.object({ saldo: money });

/** Efí `GET /v2/gn/pix/enviados?inicio&fim`: the PIX sent in a period (reconciliation). */
export const sentPixPageSchema = z.object({
  parametros: z.object({ paginacao: paginationSchema }),
  pix: z
    .array(
      z.object({
        idEnvio: z.string().optional(),
        valor: money,
        status: z.enum(['EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO']),
        horario: z.object({ solicitacao: z.string() }),
      }),
    )
    .optional(),
});

/** Efí `PUT /v2/gn/pix/:idEnvio` and `GET /v2/gn/pix/enviados/id-envio/:idEnvio`. */
export const sentPixSchema = z.object({
  idEnvio: z.string(),
  endToEndId: z.string().optional(),
  e2eId: z.string().optional(),
  status: z.enum(['EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO']),
  favorecido: z
    .object({
      identificacao: z.object({ nome: z.string().optional() }).optional(),
      contaBanco: z
        .object({ nome: z.string().optional(), codigoBanco: z.string().optional(), agencia: z.string().optional(), conta: z.string().optional() })
        .optional(),
    })
    .optional(),
});
export type SentPix = z.infer<typeof sentPixSchema>;

/** API Pix txid (and Efí's idEnvio, and our devolução ids): the UUID's 32 hex digits. */
/** The txid of a charge (and the id of a withdrawal or refund at the PSP): pix/txid.ts. */
export { txidOf };

/** Our id back from a txid of ours; null for anything the gateway did not make. */
export function idOfTxid(txid: string | undefined): string | null {
  if (!txid || !/^[0-9a-f]{32}$/.test(txid)) return null;
  return `${txid.slice(0, 8)}-${txid.slice(8, 12)}-${txid.slice(12, 16)}-${txid.slice(16, 20)}-${txid.slice(20)}`;
}

/** Cents as API Pix writes money: "1234.56". */
export const valorOf = decimalOf;

/** A percentage as API Pix writes it: 2.5 → "2.50". */
const percentOf = (percent: number): string => decimalOf(hundredthsOf(percent));

const valorPercOf = (value: DueValue): string => ('amountCents' in value ? valorOf(value.amountCents) : percentOf(value.percent));

/** BCB's modality of an amount (1) or a percentage (2): fine and abatement. */
const amountOrPercent = (value: DueValue) => ({ modalidade: 'amountCents' in value ? 1 : 2, valorPerc: valorPercOf(value) });

/** Interest: 1–4 in calendar days (an amount, then a percentage per day, month, year), 5–8 the same in business days. */
function jurosOf(interest: NonNullable<DueTerms['interest']>) {
  const kind = 'amountCents' in interest ? 1 : { day: 2, month: 3, year: 4 }[interest.per];
  return { modalidade: kind + (interest.days === 'business' ? 4 : 0), valorPerc: valorPercOf(interest) };
}

/** Discount: until fixed dates, 1 (amounts) or 2 (percentages); per day early, 3/4 (an amount, calendar/business days) or 5/6 (a percentage). */
function descontoOf(discount: NonNullable<DueTerms['discount']>): CobVSolicitada['valor']['desconto'] {
  if ('until' in discount) {
    const modalidade = discount.until.every((tier) => 'amountCents' in tier) ? 1 : 2;
    return { modalidade, descontoDataFixa: discount.until.map((tier) => ({ data: tier.date, valorPerc: valorPercOf(tier) })) };
  }
  const { perDayEarly } = discount;
  const modalidade = ('amountCents' in perDayEarly ? 3 : 5) + (perDayEarly.days === 'business' ? 1 : 0);
  return { modalidade, valorPerc: valorPercOf(perDayEarly) };
}

/** The body of `PUT /cobv/{txid}`: a charge with a due date, its named payer and its parts in BCB's modalities. */
export function cobvBodyOf(amountCents: number, due: NonNullable<ChargeRequest['due']>, chave: string): CobVSolicitada {
  const { terms, payer } = due;
  const devedor = payer.documentType === 'cpf' ? { cpf: payer.document, nome: payer.name } : { cnpj: payer.document, nome: payer.name };
  return cobvRequestSchema.parse({
    calendario: { dataDeVencimento: terms.dueDate, validadeAposVencimento: terms.validityAfterDueDays },
    devedor,
    valor: {
      original: valorOf(amountCents),
      ...(terms.fine ? { multa: amountOrPercent(terms.fine) } : {}),
      ...(terms.interest ? { juros: jurosOf(terms.interest) } : {}),
      ...(terms.abatement ? { abatimento: amountOrPercent(terms.abatement) } : {}),
      ...(terms.discount ? { desconto: descontoOf(terms.discount) } : {}),
    },
    chave,
  });
}

export function centsOf(valor: string): number {
  const [units = '', fraction = ''] = valor.split('.');
  return Number(units) * 100 + Number(fraction);
}

/**
 * The PSP's BR Code is what the payer's app reads: its CRC must hold, its location must be the
 * charge's, and an amount, when the code carries one, must be the charge's. A cobv's amount
 * depends on the day it is paid (null): its code carries none. Answers what is wrong.
 */
export function brCodeProblem(pixCopiaECola: string, expected: { location: string; amountCents: number | null }): string | null {
  if (!/^[\x20-\x7E]+$/.test(pixCopiaECola)) return 'not printable ASCII';
  const crcAt = pixCopiaECola.length - 4;
  if (pixCopiaECola.slice(crcAt - 4, crcAt) !== '6304') return 'no CRC field at the end';
  if (crc16CcittFalse(pixCopiaECola.slice(0, crcAt)) !== pixCopiaECola.slice(crcAt)) return 'CRC does not match';
  let fields;
  try {
    fields = parseBrCodeFields(pixCopiaECola);
  } catch (error) {
    return error instanceof Error ? error.message : 'malformed';
  }
  const account = fields.get('26');
  const location = account ? parseBrCodeFields(account).get('25') : undefined;
  if (location !== expected.location) return 'location is not the charge’s';
  const amount = fields.get('54');
  if (amount !== undefined && expected.amountCents === null) return 'an amount in the code of a charge with a due date';
  if (amount !== undefined && (!/^\d+\.\d{2}$/.test(amount) || centsOf(amount) !== expected.amountCents)) return 'amount is not the charge’s';
  return null;
}

/** Who paid, from the PSP's extension when it gives one (API Pix itself names no payer since 2.6.3). */
export function payerOf(pix: Pix): Party | null {
  const payer = pix.gnExtras?.pagador;
  const document = payer?.cpf ?? payer?.cnpj;
  if (!payer || !document) return null;
  // The PSP tells the payer's bank (ISPB), not the branch and account.
  return { name: payer.nome, document, documentType: payer.cpf ? 'cpf' : 'cnpj', bankAccount: { ispb: payer.codigoBanco ?? '', branch: '', account: '' } };
}

/** A devolução's state as the gateway's refund outcome. */
export function refundOutcomeOf(devolucao: Devolucao): RefundOutcome {
  if (devolucao.status === 'DEVOLVIDO') return { status: 'refunded', refundEndToEndId: devolucao.rtrId };
  if (devolucao.status === 'NAO_REALIZADO') return { status: 'failed', reason: devolucao.motivo ?? 'nao_realizado' };
  return { status: 'unknown' };
}

/** MED returns are the PSP's own (API Pix lets a receiver ask only for ORIGINAL or RETIRADA). */
export const isMedReturn = (devolucao: Devolucao): boolean => devolucao.natureza?.startsWith('MED_') ?? false;

export const medReasonOf = (devolucao: Devolucao): 'fraud' | 'operational_flaw' => (devolucao.natureza === 'MED_FRAUDE' ? 'fraud' : 'operational_flaw');

/**
 * Who received a paid withdrawal. Efí masks the document it shows; it checked the key's holder
 * against the document we sent (the expected holder's), so that is the beneficiary's.
 */
export function beneficiaryOf(sent: SentPix, expectedHolder: Holder): Party {
  const account = sent.favorecido?.contaBanco;
  return {
    name: sent.favorecido?.identificacao?.nome ?? account?.nome ?? expectedHolder.name,
    document: expectedHolder.document,
    documentType: expectedHolder.documentType,
    bankAccount: { ispb: account?.codigoBanco ?? '', branch: account?.agencia ?? '', account: account?.conta ?? '' },
  };
}

/** BCB's idRec: R, R or N, the ISPB, the day, 11 characters. */
const idRec = z.string().regex(/^[a-zA-Z0-9]{29}$/);

/** API Pix `RecGerada` (`POST /rec`): what the adapter reads of a registered recurrence. */
export const createdRecSchema = z.object({ idRec, status: z.string() });

/** API Pix `SolicRecCompleta` (`POST /solicrec`): the request sent to the payer. */
export const createdSolicRecSchema = z.object({ idSolicRec: z.string(), idRec, status: z.string() });

/** API Pix `RecCompleta` (`GET /rec/{idRec}`): its status and, once ended, who cancelled it. */
export const recSchema = z.object({
  idRec,
  status: z.enum(['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA']),
  encerramento: z.object({ cancelamento: z.object({ solicitante: z.string() }).optional() }).optional(),
});
export type Rec = z.infer<typeof recSchema>;

/** API Pix `CobRGerada` / `CobRCompleta`: a cycle's charge, with its attempts' history. */
export const cobrSchema = z.object({
  idRec,
  txid: z.string(),
  status: z.enum(['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA']),
  valor: z.object({ original: money }),
  calendario: z.object({ dataDeVencimento: day }),
  tentativas: z.array(z.object({ status: z.string(), endToEndId, dataLiquidacao: day })).optional(),
});
export type CobR = z.infer<typeof cobrSchema>;

/** API Pix `GET /rec` (RecsConsultadas) and `GET /cobr` (CobsRConsultadas): a page of the list, by creation date. */
export const recPageSchema = z.object({ parametros: z.object({ paginacao: paginationSchema }), recs: z.array(recSchema) });
export const cobrPageSchema = z.object({ parametros: z.object({ paginacao: paginationSchema }), cobsr: z.array(cobrSchema) });

/** The PSP's callbacks `POST {webhookUrl}/rec` (WebhookRecBody) and `POST {webhookUrl}/cobr` (WebhookCobRBody): only the ids are read, each read back. */
export const recNotificationSchema = z.object({ recs: z.array(z.object({ idRec })).max(1000) });
export const cobrNotificationSchema = z.object({ cobsr: z.array(z.object({ txid: z.string().regex(/^[a-zA-Z0-9]{26,35}$/) })).max(1000) });
