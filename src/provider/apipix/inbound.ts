import type { z } from 'zod';
import type { PspSettings } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/database.js';
import type { CycleChargeReport, ProviderInbound, ProviderLogger, ProviderReports, RecurrenceReport } from '../provider.js';
import { PspRefusal, PspUnavailable, readPages, type PspClient } from './client.js';
import { startNotificationListener, type NotificationKind } from './notificationRoutes.js';
import {
  centsOf,
  cobPageSchema,
  cobrNotificationSchema,
  cobrPageSchema,
  cobrSchema,
  recPageSchema,
  recNotificationSchema,
  recSchema,
  type CobR,
  type Rec,
  idOfTxid,
  isMedReturn,
  medReasonOf,
  notificationSchema,
  payerOf,
  pixPageSchema,
  pixSchema,
  refundOutcomeOf,
  type Pix,
} from './payloads.js';
import { advanceCursor, findCursor } from './repository.js';

const MINUTE_MS = 60_000;
/** Each poll reads again the last minutes before its cursor: a PIX the PSP lists late is still found. */
const POLL_OVERLAP_MS = 10 * MINUTE_MS;
/** A first poll reads this far back. */
const FIRST_POLL_WINDOW_MS = 60 * MINUTE_MS;
/**
 * The sweep of recurrences and cycle charges lists those created from a little before the oldest
 * open one here (the PSP dates its rec or cobr after our row; its clock may run behind ours).
 */
const SWEEP_MARGIN_MS = 60 * MINUTE_MS;
/** Charges live at most 30 days (expiresInDays): a removed one is looked for that far back. */
const REMOVED_CHARGE_WINDOW_MS = 30 * 24 * 60 * MINUTE_MS;

/**
 * Where a provider's webhook is registered (API Pix appends `/pix`): `/apipix` for the provider
 * PIX_PROVIDER configures, `/apipix/<id>` for each one of PROVIDERS_FILE.
 */
const notificationBaseOf = (providerId: string) => (providerId === 'default' ? '/apipix' : `/apipix/${providerId}`);
/** Notifications read back at once; more wait (the PSP's answer never waits for them). */
const MAX_PENDING_NOTIFICATIONS = 1000;

/**
 * What the PSP tells on its own (DESIGN.md §12): its notifications of received PIX and of
 * devoluções reaching a final status, and a poller for what they missed. A notification is never
 * believed: each PIX it names is read back from the PSP (`GET /pix/{e2eid}`) before anything is
 * applied, and the services apply each PIX and each devolução once, however often it is reported.
 */
export class ApiPixInbound implements ProviderInbound {
  private readonly inFlight = new Set<Promise<void>>();
  private listener: { url: string; close(): Promise<void> } | null = null;

  constructor(
    readonly providerId: string,
    private readonly client: PspClient,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly reports: ProviderReports,
    private readonly settings: PspSettings,
    private readonly logger: ProviderLogger,
  ) {}

  /**
   * A notification body: accepted when well-formed (the PSP is answered at once), then each PIX is
   * read back and applied in the background. False when the body is not a notification.
   */
  acknowledge(body: unknown, kind: NotificationKind = 'pix'): boolean {
    let work: () => Promise<void>;
    if (kind === 'pix') {
      const parsed = notificationSchema.safeParse(body);
      if (!parsed.success) return false;
      const endToEndIds = [...new Set(parsed.data.pix.map((item) => item.endToEndId))];
      work = () => this.readBack(endToEndIds);
    } else if (kind === 'rec') {
      const parsed = recNotificationSchema.safeParse(body);
      if (!parsed.success) return false;
      const ids = [...new Set(parsed.data.recs.map((item) => item.idRec))];
      work = () => this.readBackRecs(ids);
    } else {
      const parsed = cobrNotificationSchema.safeParse(body);
      if (!parsed.success) return false;
      const txids = [...new Set(parsed.data.cobsr.map((item) => item.txid))];
      work = () => this.readBackCobrs(txids);
    }
    if (this.inFlight.size >= MAX_PENDING_NOTIFICATIONS) {
      // The poller finds these (its sweep, a rec's or a cobr's); the PSP is not made to wait or to retry.
      this.logger.warn({ pending: this.inFlight.size, kind }, 'PSP notification left to the poller: too many being read back');
      return true;
    }
    const running = work().finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
    return true;
  }

  /** Each recurrence a notification names, read back (`GET /rec/{idRec}`) and its status applied. */
  private async readBackRecs(ids: string[]): Promise<void> {
    for (const idRec of ids) {
      try {
        const rec = recSchema.parse(await this.client.call({ method: 'GET', path: `/rec/${encodeURIComponent(idRec)}`, idempotent: true }));
        await this.applyRec(rec);
      } catch (error) {
        const known = error instanceof PspRefusal || error instanceof PspUnavailable;
        this.logger[known ? 'warn' : 'error']({ err: error, idRec }, 'PSP recurrence notification not applied');
      }
    }
  }

  /**
   * Each cycle's charge a notification names, read back (`GET /cobr/{txid}`) and applied; a failed
   * attempt the recurrence retries is asked of the PSP for the day the gateway set
   * (`POST /cobr/{txid}/retentativa/{data}`).
   */
  private async readBackCobrs(txids: string[]): Promise<void> {
    for (const txid of txids) {
      try {
        const cobr = cobrSchema.parse(await this.client.call({ method: 'GET', path: `/cobr/${txid}`, idempotent: true }));
        await this.applyCobr(cobr);
      } catch (error) {
        const known = error instanceof PspRefusal || error instanceof PspUnavailable;
        this.logger[known ? 'warn' : 'error']({ err: error, txid }, 'PSP cobr notification not applied');
      }
    }
  }

  /** A rec's status, as the PSP answers it (read back, or listed by the sweep): applied once. Answers whether it changed anything. */
  private async applyRec(rec: Rec): Promise<boolean> {
    const report = recurrenceReportOf(rec);
    const receipt = report ? await this.reports.recurrenceReported(rec.idRec, report) : 'ignored';
    if (receipt === 'applied') this.logger.info({ idRec: rec.idRec, status: rec.status }, 'recurrence status from the PSP applied');
    if (receipt === 'cancelled_there') {
      this.logger.warn(
        { idRec: rec.idRec, status: rec.status },
        'recurrence approved at the PSP after it expired or was cancelled here: an orphan rec, to be cancelled at the PSP',
      );
    }
    return receipt !== 'ignored';
  }

  /** A cobr's state, as the PSP answers it (read back, or listed by the sweep): applied once. Answers whether it changed anything. */
  private async applyCobr(cobr: CobR): Promise<boolean> {
    const transactionId = idOfTxid(cobr.txid);
    const report = cycleChargeReportOf(cobr);
    if (!transactionId || !report) return false;
    const receipt = await this.reports.cycleChargeReported(transactionId, report);
    if (receipt.outcome === 'unknown_charge') this.logger.warn({ txid: cobr.txid }, 'PSP reported a cobr of no cycle of ours');
    // A retry owed is asked again (the first ask failed, or its answer was lost) unless the cobr holds an attempt not finished: BCB refuses a second one.
    const asks = receipt.outcome === 'retry_on' || (receipt.outcome === 'retry_owed' && !hasAttemptInFlight(cobr));
    if (asks) {
      await this.client.call({ method: 'POST', path: `/cobr/${cobr.txid}/retentativa/${receipt.day}`, idempotent: false });
      this.logger.info({ transactionId, day: receipt.day }, "cycle's debit retry asked of the PSP");
    }
    return asks || receipt.outcome === 'applied';
  }

  /** Waits for the notifications being read back (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  get pollIntervalMs(): number {
    return this.settings.pollIntervalMs;
  }

  /** Each provider's poller keeps its own cursor. */
  private get cursorName(): string {
    return `${this.providerId}:pix`;
  }

  async poll(): Promise<number> {
    const fim = this.clock.now();
    const cursor = (await findCursor(this.db, this.cursorName)) ?? new Date(fim.getTime() - FIRST_POLL_WINDOW_MS);
    const inicio = new Date(cursor.getTime() - POLL_OVERLAP_MS);
    let applied = 0;
    for await (const page of this.pages(pixPageSchema, '/pix', { inicio: inicio.toISOString(), fim: fim.toISOString() })) {
      for (const pix of page.pix ?? []) applied += await this.apply(pix);
    }
    await advanceCursor(this.db, this.cursorName, fim);
    // Charges the PSP removed, of either kind (a cob, or a cobv: a charge with a due date).
    const created = { inicio: new Date(fim.getTime() - REMOVED_CHARGE_WINDOW_MS).toISOString(), fim: fim.toISOString(), status: 'REMOVIDA_PELO_PSP' };
    for (const path of ['/cob', '/cobv']) {
      for await (const page of this.pages(cobPageSchema, path, created)) {
        for (const cob of page.cobs) {
          const transactionId = idOfTxid(cob.txid);
          if (transactionId) await this.reports.chargeRemoved(transactionId);
        }
      }
    }
    return applied + (await this.sweepRecurrences(fim));
  }

  /**
   * What the PSP's rec and cobr callbacks may have missed (the payer's approval, refusal or
   * cancellation, a debit paid or failed): `GET /rec` and `GET /cobr` list by creation date, so each
   * lists from a little before the oldest recurrence, or cycle charge, still open here, up to now —
   * one paged list, not a read per open item; nothing open here, no call. Each is applied as a
   * callback's read-back is: a repeat, or a state that takes it no more, changes nothing.
   */
  private async sweepRecurrences(fim: Date): Promise<number> {
    const open = await this.reports.openAtProvider();
    const windowFrom = (since: Date) => ({ inicio: new Date(since.getTime() - SWEEP_MARGIN_MS).toISOString(), fim: fim.toISOString() });
    let applied = 0;
    if (open.recurrences) {
      for await (const page of this.pages(recPageSchema, '/rec', windowFrom(open.recurrences))) {
        for (const rec of page.recs) applied += await this.swept(() => this.applyRec(rec), { idRec: rec.idRec });
      }
    }
    if (open.cycleCharges) {
      for await (const page of this.pages(cobrPageSchema, '/cobr', windowFrom(open.cycleCharges))) {
        for (const cobr of page.cobsr) applied += await this.swept(() => this.applyCobr(cobr), { txid: cobr.txid });
      }
    }
    return applied;
  }

  /** One item of the sweep: 1 when it changed something; a failure is logged and leaves the others to be applied. */
  private async swept(apply: () => Promise<boolean>, item: { idRec: string } | { txid: string }): Promise<number> {
    try {
      return (await apply()) ? 1 : 0;
    } catch (error) {
      const known = error instanceof PspRefusal || error instanceof PspUnavailable;
      this.logger[known ? 'warn' : 'error']({ err: error, ...item }, 'PSP recurrence or cobr state not applied by the sweep');
      return 0;
    }
  }

  async listen(): Promise<string | null> {
    if (!this.settings.webhook || this.listener) return this.listener?.url ?? null;
    this.listener = await startNotificationListener(this.settings.webhook, notificationBaseOf(this.providerId), this);
    return this.listener.url;
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.listener = null;
    await this.settled();
    await this.client.close();
  }

  private async readBack(endToEndIds: string[]): Promise<void> {
    for (const endToEndId of endToEndIds) {
      try {
        const pix = pixSchema.parse(await this.client.call({ method: 'GET', path: `/pix/${endToEndId}`, idempotent: true }));
        await this.apply(pix);
      } catch (error) {
        // Unknown to the PSP (a forged or mistaken notification) or unreadable now: the poller looks again.
        const known = error instanceof PspRefusal || error instanceof PspUnavailable;
        this.logger[known ? 'warn' : 'error']({ err: error, endToEndId }, 'PSP notification not applied');
      }
    }
  }

  /** A PIX as the PSP reports it: the payment, then its devoluções. Answers how many reports it applied. */
  private async apply(pix: Pix): Promise<number> {
    if (!pix.txid) return 0; // a PIX to the key without txid: no charge or code of ours names it
    const transactionId = idOfTxid(pix.txid);
    let applied = 0;
    const paidAt = new Date(pix.horario);
    const payment = {
      endToEndId: pix.endToEndId,
      amountCents: centsOf(pix.valor),
      payer: payerOf(pix),
      ...(Number.isNaN(paidAt.getTime()) ? {} : { paidAt }),
    };
    let receipt = transactionId ? await this.reports.paymentReceived({ transactionId, ...payment }) : 'unknown_charge';
    // A txid of no charge: a static QR code's, when one carries it (a PIX to the receiving key from its BR Code).
    if (receipt === 'unknown_charge') receipt = await this.reports.staticPaymentReceived({ txid: pix.txid, ...payment });
    if (receipt === 'unknown_charge') this.logger.warn({ endToEndId: pix.endToEndId }, 'PIX received for no charge of ours: left to the operator');
    if (receipt === 'other_provider') {
      this.logger.warn(
        { transactionId, endToEndId: pix.endToEndId, providerId: this.providerId },
        'PIX received for a charge bound to another provider: not applied, left to the operator',
      );
    }
    if (receipt === 'credited' || receipt === 'returned') {
      applied++;
      this.logger.info({ transactionId, endToEndId: pix.endToEndId, receipt }, 'PIX from the PSP applied');
    }
    for (const devolucao of pix.devolucoes ?? []) {
      if (isMedReturn(devolucao)) {
        if (devolucao.status !== 'DEVOLVIDO') continue;
        const chargeback = {
          paymentEndToEndId: pix.endToEndId,
          amountCents: centsOf(devolucao.valor),
          refundEndToEndId: devolucao.rtrId,
          reason: medReasonOf(devolucao),
        };
        if ((await this.reports.chargebackReported(chargeback)) === 'applied') {
          applied++;
          this.logger.info({ transactionId, refundEndToEndId: devolucao.rtrId }, 'MED return from the PSP applied as a chargeback');
        }
        continue;
      }
      const refundId = idOfTxid(devolucao.id);
      const outcome = refundOutcomeOf(devolucao);
      if (refundId && outcome.status !== 'unknown') await this.reports.refundSettled(refundId, outcome);
    }
    return applied;
  }

  private pages<T extends { parametros: { paginacao: { quantidadeDePaginas: number } } }>(schema: z.ZodType<T>, path: string, query: Record<string, string>) {
    return readPages(this.client, schema, path, query);
  }
}

/** A rec's status as the services read it; none for CRIADA (nothing happened yet). */
function recurrenceReportOf(rec: Rec): RecurrenceReport | null {
  switch (rec.status) {
    case 'APROVADA':
      return { status: 'authorized' };
    case 'REJEITADA':
      return { status: 'refused' };
    case 'EXPIRADA':
      return { status: 'expired' };
    case 'CANCELADA': {
      // The payer, in its app, or its PSP; otherwise the receiving side (our own PATCH, or our PSP).
      const solicitante = rec.encerramento?.cancelamento?.solicitante;
      return { status: 'cancelled', by: solicitante === 'USUARIO_PAGADOR' || solicitante === 'PSP_PAGADOR' ? 'payer' : 'merchant' };
    }
    case 'CRIADA':
      return null;
  }
}

/** BCB: an attempt requested or scheduled is one in flight; a retry is refused while one is. */
const hasAttemptInFlight = (cobr: CobR): boolean => (cobr.tentativas ?? []).some((attempt) => attempt.status === 'SOLICITADA' || attempt.status === 'AGENDADA');

/**
 * A cobr's state as the services read it: CONCLUIDA is paid by its PAGA attempt; ATIVA with rejected
 * (or expired) attempts, that many failures; REJEITADA failed; CANCELADA cancelled. EXPIRADA is left to the
 * gateway's own expiry of the charge (after its last attempt day).
 */
function cycleChargeReportOf(cobr: CobR): CycleChargeReport | null {
  const attempts = cobr.tentativas ?? [];
  switch (cobr.status) {
    case 'CONCLUIDA': {
      const paid = attempts.find((attempt) => attempt.status === 'PAGA');
      if (!paid) return null;
      return { status: 'paid', payment: { endToEndId: paid.endToEndId, payer: null, amountCents: centsOf(cobr.valor.original) } };
    }
    case 'ATIVA': {
      // An attempt that lapsed unsettled (EXPIRADA) failed as a rejected one did.
      const failedAttempts = attempts.filter((attempt) => attempt.status === 'REJEITADA' || attempt.status === 'EXPIRADA').length;
      return failedAttempts > 0 ? { status: 'attempt_failed', failedAttempts } : null;
    }
    case 'REJEITADA':
      return { status: 'failed' };
    case 'CANCELADA':
      return { status: 'cancelled' };
    case 'CRIADA':
    case 'EXPIRADA':
      return null;
  }
}
