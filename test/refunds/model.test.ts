import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { createCharge, eventsOf, fund } from '../helpers/api.js';
import type { Method } from '../helpers/contract.js';
import { startGateway, type Gateway, type Merchant, type Reply, NO_CHARGE_FEES, withdrawalToHolder } from '../helpers/gateway.js';

/**
 * A model-based property test of a charge's life after creation (DESIGN.md §9, §19's MED 2.0):
 * random sequences of sandbox moves (pay, expire, fail), the merchant's cancel, refunds and their
 * settlement, other PIX held by the PSP then released or returned, several partial MED cases (opened, defended, analysed, closed either way by the PSP
 * or the operator, recovered in full or in part), withdrawals and credits of the merchant's
 * balance, the clock moving on and the worker steps (expiry, MED deadline), run over real HTTP
 * against one charge of 1000 cents per property run and replayed on a small in-memory model. The
 * merchant starts with or without other money, so cases meet money already withdrawn: their blocks
 * take what is withdrawable, later credits top them up, and what a chargeback takes beyond the
 * balance is owed until credits pay it. After every step the charge's status and refunded amount,
 * its events (each transition's exactly once, in order, with the status, case and refund they
 * carry), its refunds and MED cases, the merchant's balance (available, blocked, withdrawable,
 * owed, shortfall) and the ledger's invariants (entries summing to zero, blocks and shortfall
 * matching their cases) must agree with the model; a refused command must answer 422 with its
 * exact message and change nothing.
 */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(async () => {
  await gateway.close();
});

const MINUTE = 60_000;
const DAY = 86_400_000;
const AMOUNT = 1000;
/** What the merchant may hold besides the charge: either plenty or nothing (then withdrawals and cases meet). */
const FUNDS = [0, 0, 2_000] as const;
/** A charge's default validity (POST /v1/pix without expiresInDays). */
const VALIDITY = 2 * DAY;
/** A MED case's defense deadline (MED_DEFENSE_DAYS, 5 by default). */
const DEFENSE = 5 * DAY;
/** A charge may be refunded within 90 days of its payment. */
const REFUND_WINDOW = 90 * DAY;

type ChargeStatus = 'pending' | 'paid' | 'expired' | 'cancelled' | 'failed' | 'refunded' | 'partially_refunded';
type RefundModel = { refundId: string; kind: 'merchant' | 'med'; amountCents: number; status: 'processing' | 'refunded' | 'failed' };
type CaseStatus = 'open' | 'in_defense' | 'under_analysis' | 'accepted' | 'rejected';
/** `held`: what the case's block holds (at most its amount; the rest later credits top up). */
type CaseModel = { infractionId: string; amountCents: number; held: number; status: CaseStatus; openedAt: number; recoveredCents: number | null };
/** An event as the model expects it: its name, the charge's status and refunded amount it shows, and the case or settled refund it carries. */
type ExpectedEvent = {
  name: string;
  status: ChargeStatus;
  refundedCents?: number;
  infraction?: { infractionId: string; status: CaseStatus };
  refund?: { refundId: string; status: 'refunded' };
};

/** What the charge, its refunds and cases and the merchant's balance should be. Times are the ms the clock moved since the charge was created. */
type Model = {
  now: number;
  status: ChargeStatus;
  paidAt: number | null;
  refundedCents: number;
  /** Oldest first. */
  refunds: RefundModel[];
  /** Oldest first. */
  cases: CaseModel[];
  /** Oldest first. */
  events: ExpectedEvent[];
  available: number;
  /** Other charges of the merchant paid held by the PSP (cautionary blocks), by id: their amounts while held. */
  holds: Map<string, number>;
};
type Real = { merchant: Merchant; transactionId: string };

const RUNNING: readonly CaseStatus[] = ['open', 'in_defense', 'under_analysis'];
const isPaid = (model: Readonly<Model>) => model.status === 'paid' || model.status === 'partially_refunded';
/** A pending charge whose validity elapsed is expired to every move, though it reads pending until the worker runs. */
const isElapsed = (model: Readonly<Model>) => model.status === 'pending' && model.now >= VALIDITY;
const runningCases = (model: Readonly<Model>) => model.cases.filter((infraction) => RUNNING.includes(infraction.status));
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
/** The charge's amount not given back (refunds not failed). */
const refundableOf = (model: Readonly<Model>) => AMOUNT - sum(model.refunds.filter((refund) => refund.status !== 'failed').map((refund) => refund.amountCents));
/** ... nor claimed by a running case. */
const remainderOf = (model: Readonly<Model>) => refundableOf(model) - sum(runningCases(model).map((infraction) => infraction.amountCents));
/** The blocks: the running cases' and the PSP's holds. */
const blockedOf = (model: Readonly<Model>) => sum(runningCases(model).map((infraction) => infraction.held)) + sum([...model.holds.values()]);
const shortfallOf = (model: Readonly<Model>) => sum(runningCases(model).map((infraction) => infraction.amountCents - infraction.held));
const withdrawableOf = (model: Readonly<Model>) => model.available - blockedOf(model);

/** Money comes in: once the balance covers the blocks, it tops up the running cases' blocks, the oldest first. */
function credit(model: Model, cents: number): void {
  model.available += cents;
  topUp(model);
}

/** What is withdrawable tops up the running cases' short blocks, the oldest first (after a credit, or a block's release). */
function topUp(model: Model): void {
  let top = Math.min(shortfallOf(model), Math.max(0, withdrawableOf(model)));
  for (const infraction of runningCases(model)) {
    const taken = Math.min(top, infraction.amountCents - infraction.held);
    infraction.held += taken;
    top -= taken;
  }
}

/** Records an event of the charge as it stands now in the model. */
function emit(model: Model, name: string, context: { infraction?: CaseModel; refund?: RefundModel } = {}): void {
  const { infraction, refund } = context;
  model.events.push({
    name,
    status: model.status,
    ...(model.refundedCents > 0 ? { refundedCents: model.refundedCents } : {}),
    ...(infraction ? { infraction: { infractionId: infraction.infractionId, status: infraction.status } } : {}),
    ...(refund ? { refund: { refundId: refund.refundId, status: 'refunded' } } : {}),
  });
}

/** A refund settled as refunded (a merchant's, or a MED chargeback's): the charge is refunded in full or in part. */
function settleBack(model: Model, refund: RefundModel): void {
  model.refundedCents += refund.amountCents;
  model.status = model.refundedCents === AMOUNT ? 'refunded' : 'partially_refunded';
  emit(model, `transaction.${model.status}`, { refund });
}

const call = <M extends Method, P extends string>(real: Real, method: M, path: P, body?: unknown) =>
  gateway.call(method, path, { key: real.merchant.apiKey, ...(body === undefined ? {} : { body }) });

/** A command the gateway carried out: its status, with the body in the message when it is not. */
function expectAnswered(reply: Reply, status: 200 | 201): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
}

/** A refused command: 422 with exactly this message (what it changed, nothing, is the next check's). */
function expectRefused(reply: Reply, error: string): void {
  expect({ status: reply.status, body: reply.body }).toEqual({ status: 422, body: { error } });
}

/** The gateway agrees with the model: charge, events, refunds, cases, balance and ledger. */
async function verify(model: Readonly<Model>, real: Real): Promise<void> {
  const charge = await call(real, 'GET', `/v1/transactions/${real.transactionId}`);
  expect(charge.status).toBe(200);
  expect(charge.body.status).toBe(model.status);
  if (model.refundedCents > 0) expect(charge.body.refundedCents).toBe(model.refundedCents);
  else expect(charge.body).not.toHaveProperty('refundedCents');

  const events = await eventsOf(gateway, real.transactionId);
  expect(events.map((event) => event.name)).toEqual(model.events.map((event) => event.name));
  expect(
    events.map(({ name, payload }) => {
      // The event's fields this model follows (each event's full shape: test/webhooks).
      const { infraction, refund } = payload as { infraction?: { infractionId: string; status: string }; refund?: { refundId: string; status: string } };
      return {
        name,
        status: payload.status,
        refundedCents: payload.refundedCents,
        infraction: infraction && { infractionId: infraction.infractionId, status: infraction.status },
        refund: refund && { refundId: refund.refundId, status: refund.status },
      };
    }),
  ).toEqual(model.events);

  const refunds = await call(real, 'GET', `/v1/transactions/${real.transactionId}/refunds`);
  expect(refunds.status).toBe(200);
  expect(refunds.body.refunds.map(({ refundId, kind, amountCents, status }) => ({ refundId, kind, amountCents, status }))).toEqual(model.refunds.toReversed());

  const cases = await call(real, 'GET', '/v1/infractions?limit=100');
  expect(cases.status).toBe(200);
  expect(
    cases.body.infractions.map(({ infractionId, transactionId, amountCents, status, recoveredCents }) => ({
      infractionId,
      transactionId,
      amountCents,
      status,
      recoveredCents,
    })),
  ).toEqual(
    model.cases.toReversed().map(({ infractionId, amountCents, status, recoveredCents }) => ({
      infractionId,
      transactionId: real.transactionId,
      amountCents,
      status,
      recoveredCents,
    })),
  );
  // No case ever recovers more than its amount.
  for (const infraction of cases.body.infractions) expect(infraction.recoveredCents ?? 0).toBeLessThanOrEqual(infraction.amountCents);
  const blocks = await gateway.database.db
    .selectFrom('blocks')
    .select(['infractionId', 'transactionId', 'amountCents'])
    .where('accountId', '=', real.merchant.accountId)
    .where('status', '=', 'active')
    .execute();
  expect(new Map(blocks.map((block) => [block.infractionId ?? block.transactionId, block.amountCents]))).toEqual(
    new Map([...runningCases(model).map((infraction): [string, number] => [infraction.infractionId, infraction.held]), ...model.holds]),
  );

  const balance = await call(real, 'GET', '/v1/balance');
  expect(balance.body).toMatchObject({
    available: model.available,
    blocked: blockedOf(model),
    withdrawable: withdrawableOf(model),
    owed: Math.max(0, -model.available),
    shortfall: shortfallOf(model),
  });
  expect(await gateway.ledgerProblems()).toEqual([]);
}

type Command = fc.AsyncCommand<Model, Real>;

/** The moves out of `pending`: three by the sandbox (the network), one by the merchant. */
const PENDING_MOVES = {
  pay: { path: (id: string) => `/sandbox/v1/pix/${id}/pay`, to: 'paid', refusal: messages.chargeNotPending },
  expire: { path: (id: string) => `/sandbox/v1/pix/${id}/expire`, to: 'expired', refusal: messages.chargeNotPending },
  fail: { path: (id: string) => `/sandbox/v1/pix/${id}/fail`, to: 'failed', refusal: messages.chargeNotPending },
  cancel: { path: (id: string) => `/v1/pix/${id}/cancel`, to: 'cancelled', refusal: messages.chargeNotCancellable },
} as const satisfies Record<string, { path: (id: string) => string; to: ChargeStatus; refusal: (status: string) => string }>;

class PendingMove implements Command {
  constructor(readonly move: keyof typeof PENDING_MOVES) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const { path, to, refusal } = PENDING_MOVES[this.move];
    const reply = await call(real, 'POST', path(real.transactionId));
    if (model.status !== 'pending' || isElapsed(model)) {
      expectRefused(reply, refusal(isElapsed(model) ? 'expired' : model.status));
    } else {
      expectAnswered(reply, 200);
      expect(reply.body).toMatchObject({ transactionId: real.transactionId, status: to });
      model.status = to;
      emit(model, `transaction.${to}`);
      if (to === 'paid') {
        model.paidAt = model.now;
        credit(model, AMOUNT);
      }
    }
    await verify(model, real);
  }
  toString = () => this.move;
}

/** The expiry worker step: a pending charge whose validity elapsed becomes expired. */
class ExpireDue implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    // The step covers every charge of the database (earlier runs' too): its count is at least ours.
    const expired = await gateway.services.charges.expireDueCharges();
    if (isElapsed(model)) {
      expect(expired).toBeGreaterThanOrEqual(1);
      model.status = 'expired';
      emit(model, 'transaction.expired');
    }
    await verify(model, real);
  }
  toString = () => 'expireDue';
}

class Refund implements Command {
  /** `undefined`: no amount sent, the remainder is refunded. */
  constructor(readonly amountCents: number | undefined) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const reply = await call(
      real,
      'POST',
      `/v1/transactions/${real.transactionId}/refunds`,
      this.amountCents === undefined ? {} : { amountCents: this.amountCents },
    );
    const remainder = refundableOf(model);
    const amountCents = this.amountCents ?? remainder;
    // A pending charge past its validity reads expired, as in every other move.
    if (!isPaid(model)) expectRefused(reply, messages.refundChargeNotPaid(isElapsed(model) ? 'expired' : model.status));
    else if (model.now - (model.paidAt ?? 0) > REFUND_WINDOW) expectRefused(reply, messages.refundWindowExpired);
    else if (runningCases(model).length > 0) expectRefused(reply, messages.refundDuringDispute);
    else if (amountCents > remainder || amountCents < 1) expectRefused(reply, messages.refundAboveRemainder(remainder));
    else if (withdrawableOf(model) < amountCents) expectRefused(reply, messages.refundInsufficientBalance);
    else {
      expectAnswered(reply, 201);
      expect(reply.body).toMatchObject({ transactionId: real.transactionId, kind: 'merchant', amountCents, status: 'processing', settledAt: null });
      model.refunds.push({ refundId: reply.body.refundId, kind: 'merchant', amountCents, status: 'processing' });
      model.available -= amountCents;
    }
    await verify(model, real);
  }
  toString = () => `refund(${this.amountCents ?? 'remainder'})`;
}

/** The network's answer for one of the charge's refunds (picked by `pick`); a refund already settled is refused. */
class SettleRefund implements Command {
  constructor(
    readonly pick: number,
    readonly outcome: 'refunded' | 'failed',
  ) {}
  check = (model: Readonly<Model>) => model.refunds.length > 0;
  async run(model: Model, real: Real) {
    // Processing refunds are picked first when there are any, so settlements are not all refusals.
    const processing = model.refunds.filter((refund) => refund.status === 'processing');
    const candidates = processing.length > 0 && this.pick % 4 !== 0 ? processing : model.refunds;
    const refund = candidates[this.pick % candidates.length]!;
    const reply = await call(real, 'POST', `/sandbox/v1/refunds/${refund.refundId}/settle`, { outcome: this.outcome });
    if (refund.status !== 'processing') expectRefused(reply, messages.refundNotProcessing(refund.status));
    else {
      expectAnswered(reply, 200);
      expect(reply.body).toMatchObject({ refundId: refund.refundId, kind: 'merchant', amountCents: refund.amountCents, status: this.outcome });
      refund.status = this.outcome;
      if (this.outcome === 'refunded') settleBack(model, refund);
      else credit(model, refund.amountCents);
    }
    await verify(model, real);
  }
  toString = () => `settleRefund(${this.pick}, ${this.outcome})`;
}

class OpenCase implements Command {
  /** `undefined`: no amount sent, the case takes the remainder. */
  constructor(readonly amountCents: number | undefined) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const body = this.amountCents === undefined ? { reason: 'fraud' } : { reason: 'fraud', amountCents: this.amountCents };
    const reply = await call(real, 'POST', `/sandbox/v1/pix/${real.transactionId}/infraction`, body);
    const remainder = remainderOf(model);
    const amountCents = this.amountCents ?? remainder;
    if (!isPaid(model)) expectRefused(reply, messages.infractionChargeNotPaid);
    else if (amountCents > remainder || amountCents < 1) expectRefused(reply, messages.infractionAboveRemainder(remainder));
    else {
      expectAnswered(reply, 201);
      expect(reply.body).toMatchObject({
        transactionId: real.transactionId,
        status: 'open',
        reason: 'fraud',
        amountCents,
        closedAt: null,
        recoveredCents: null,
      });
      // The block takes what is withdrawable now.
      const held = Math.max(0, Math.min(amountCents, withdrawableOf(model)));
      const infraction: CaseModel = { infractionId: reply.body.infractionId, amountCents, held, status: 'open', openedAt: model.now, recoveredCents: null };
      model.cases.push(infraction);
      emit(model, 'transaction.infraction', { infraction });
      emit(model, 'transaction.blocked', { infraction });
    }
    await verify(model, real);
  }
  toString = () => `openCase(${this.amountCents ?? 'remainder'})`;
}

/** Commands on one of the charge's MED cases: a running one mostly, any one sometimes. */
function pickCase(model: Readonly<Model>, pick: number): CaseModel {
  const running = runningCases(model);
  const candidates = running.length > 0 && pick % 4 !== 0 ? running : model.cases;
  return candidates[pick % candidates.length]!;
}

class Defend implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.cases.length > 0;
  async run(model: Model, real: Real) {
    const infraction = pickCase(model, this.pick);
    const reply = await call(real, 'POST', `/v1/infractions/${infraction.infractionId}/defense`, { text: 'x' });
    if (infraction.status !== 'open') expectRefused(reply, messages.infractionNoDefense(infraction.status));
    else if (model.now - infraction.openedAt >= DEFENSE) expectRefused(reply, messages.defenseDeadlinePassed);
    else {
      expectAnswered(reply, 200);
      expect(reply.body).toMatchObject({ infractionId: infraction.infractionId, status: 'in_defense', defense: 'x' });
      infraction.status = 'in_defense';
      emit(model, 'transaction.protest', { infraction });
    }
    await verify(model, real);
  }
  toString = () => 'defend';
}

class Analyze implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.cases.length > 0;
  async run(model: Model, real: Real) {
    const infraction = pickCase(model, this.pick);
    const reply = await gateway.admin('POST', `/admin/v1/infractions/${infraction.infractionId}/analysis`);
    if (infraction.status !== 'open' && infraction.status !== 'in_defense') expectRefused(reply, messages.infractionWrongStatus(infraction.status));
    else {
      expectAnswered(reply, 200);
      expect(reply.body).toMatchObject({ infractionId: infraction.infractionId, status: 'under_analysis' });
      infraction.status = 'under_analysis';
      emit(model, 'transaction.dispute', { infraction });
    }
    await verify(model, real);
  }
  toString = () => 'analyze';
}

/**
 * The case closed: by the PSP through the sandbox or by the operator; accepted, the PSP recovered
 * the case's amount or a part of it (`amountCents`, refused above the case's).
 */
class CloseCase implements Command {
  constructor(
    readonly pick: number,
    readonly by: 'sandbox' | 'operator',
    readonly outcome: 'accepted' | 'rejected',
    readonly amountCents?: number,
  ) {}
  check = (model: Readonly<Model>) => model.cases.length > 0;
  async run(model: Model, real: Real) {
    const infraction = pickCase(model, this.pick);
    const reply =
      this.by === 'sandbox'
        ? await call(real, 'POST', `/sandbox/v1/infractions/${infraction.infractionId}/close`, {
            outcome: this.outcome,
            ...(this.amountCents === undefined ? {} : { recoveredCents: this.amountCents }),
          })
        : await gateway.admin(
            'POST',
            `/admin/v1/infractions/${infraction.infractionId}/${this.outcome === 'accepted' ? 'accept' : 'reject'}`,
            this.amountCents === undefined ? undefined : { amountCents: this.amountCents },
          );
    const chargebackCents = this.amountCents ?? infraction.amountCents;
    if (!RUNNING.includes(infraction.status)) expectRefused(reply, messages.infractionWrongStatus(infraction.status));
    else if (this.outcome === 'accepted' && chargebackCents > infraction.amountCents)
      expectRefused(reply, messages.chargebackAboveCase(infraction.amountCents));
    else {
      expectAnswered(reply, 200);
      expect(reply.body).toMatchObject({ infractionId: infraction.infractionId, status: this.outcome, closedAt: expect.any(Number) });
      infraction.status = this.outcome;
      if (this.outcome === 'accepted') infraction.recoveredCents = chargebackCents;
      if (this.outcome === 'rejected') emit(model, 'transaction.dispute', { infraction });
      else {
        // Closing against the merchant records the chargeback at once, before its refund settles.
        emit(model, 'transaction.chargeback', { infraction });
        // The chargeback: a refund of nature MED, debited (even below zero) and settled at once.
        const listed = await call(real, 'GET', `/v1/transactions/${real.transactionId}/refunds`);
        const known = new Set(model.refunds.map((refund) => refund.refundId));
        const added = listed.body.refunds.filter((refund) => !known.has(refund.refundId));
        expect(added).toHaveLength(1);
        expect(added[0]).toMatchObject({ kind: 'med', amountCents: chargebackCents, status: 'refunded', reason: 'fraud' });
        const chargeback: RefundModel = { refundId: added[0]!.refundId, kind: 'med', amountCents: chargebackCents, status: 'refunded' };
        model.refunds.push(chargeback);
        model.available -= chargebackCents;
        settleBack(model, chargeback);
      }
      // The released block's money, when it stays the merchant's, tops up other short cases.
      topUp(model);
    }
    await verify(model, real);
  }
  toString = () => `closeCase(${this.pick}, ${this.by}, ${this.outcome}${this.amountCents === undefined ? '' : `, ${this.amountCents}`})`;
}

/** The merchant withdraws (no fee in these runs): only what is withdrawable leaves. */
class Withdraw implements Command {
  constructor(readonly amountCents: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const reply = await call(real, 'POST', '/v1/withdraw', withdrawalToHolder({ amountCents: this.amountCents }));
    if (withdrawableOf(model) < this.amountCents) expectRefused(reply, messages.insufficientBalance);
    else {
      expectAnswered(reply, 201);
      model.available -= this.amountCents;
    }
    await verify(model, real);
  }
  toString = () => `withdraw(${this.amountCents})`;
}

/** Another PIX received, held by the PSP (cautionary block): credited and blocked at once, it tops up nothing. */
class Hold implements Command {
  constructor(readonly amountCents: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const transactionId = await createCharge(gateway, real.merchant, { amountCents: this.amountCents });
    const reply = await call(real, 'POST', `/sandbox/v1/pix/${transactionId}/pay`, { held: true });
    expectAnswered(reply, 200);
    expect(reply.body).toMatchObject({ status: 'paid', held: true });
    model.available += this.amountCents;
    model.holds.set(transactionId, this.amountCents);
    await verify(model, real);
  }
  toString = () => `hold(${this.amountCents})`;
}

/** The PSP decides on one held PIX: released (the money the merchant's, topping up short cases) or returned (the PIX undone). */
class EndHold implements Command {
  constructor(
    readonly pick: number,
    readonly end: 'release' | 'return',
  ) {}
  check = (model: Readonly<Model>) => model.holds.size > 0;
  async run(model: Model, real: Real) {
    const [transactionId, cents] = [...model.holds][this.pick % model.holds.size]!;
    const reply = await call(real, 'POST', `/sandbox/v1/pix/${transactionId}/hold/${this.end}`);
    expectAnswered(reply, 200);
    expect(reply.body).toMatchObject({ held: false, status: this.end === 'release' ? 'paid' : 'refunded' });
    model.holds.delete(transactionId);
    if (this.end === 'return') model.available -= cents;
    topUp(model);
    await verify(model, real);
  }
  toString = () => `endHold(${this.pick}, ${this.end})`;
}

/** Money comes in from elsewhere (an operator's credit): it pays what is owed, then tops up short blocks. */
class Credit implements Command {
  constructor(readonly amountCents: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await fund(gateway, real.merchant, this.amountCents);
    credit(model, this.amountCents);
    await verify(model, real);
  }
  toString = () => `credit(${this.amountCents})`;
}

/** The clock moves on; the extra minute keeps every model time off the day boundaries the rules compare with. */
class Wait implements Command {
  constructor(readonly days: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const ms = this.days * DAY + MINUTE;
    gateway.clock.advance(ms);
    model.now += ms;
    await verify(model, real);
  }
  toString = () => `wait(${this.days}d)`;
}

/** The MED worker step: cases open or in defense past their deadline go to analysis. */
class AnalyzeOverdue implements Command {
  check = () => true;
  async run(model: Model, real: Real) {
    // The step covers every case of the database (earlier runs' too): its count is at least ours.
    const moved = await gateway.services.infractions.analyzeOverdue();
    const overdue = model.cases.filter(
      (infraction) => (infraction.status === 'open' || infraction.status === 'in_defense') && model.now - infraction.openedAt >= DEFENSE,
    );
    expect(moved).toBeGreaterThanOrEqual(overdue.length);
    for (const infraction of overdue) {
      infraction.status = 'under_analysis';
      emit(model, 'transaction.dispute', { infraction });
    }
    await verify(model, real);
  }
  toString = () => 'analyzeOverdue';
}

const amount = fc.integer({ min: 1, max: AMOUNT });
/** Mostly small amounts, so several refunds and cases fit in one charge; sometimes none (the remainder). */
const someAmount = fc.option(fc.oneof(amount, fc.integer({ min: 1, max: 250 })), { nil: undefined, freq: 6 });

/** The commands and how often each is drawn: the charge's own moves less, refunds and MED cases more. */
const command = fc.oneof(
  { weight: 2, arbitrary: fc.constant(new PendingMove('pay')) },
  { weight: 1, arbitrary: fc.constantFrom(new PendingMove('expire'), new PendingMove('fail'), new PendingMove('cancel')) },
  { weight: 1, arbitrary: fc.constant(new ExpireDue()) },
  { weight: 4, arbitrary: someAmount.map((amountCents) => new Refund(amountCents)) },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom('refunded' as const, 'failed' as const)).map(([pick, outcome]) => new SettleRefund(pick, outcome)),
  },
  { weight: 3, arbitrary: someAmount.map((amountCents) => new OpenCase(amountCents)) },
  { weight: 2, arbitrary: fc.nat().map((pick) => new Defend(pick)) },
  { weight: 1, arbitrary: fc.nat().map((pick) => new Analyze(pick)) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.nat(), fc.constantFrom('accepted' as const, 'rejected' as const), someAmount)
      .map(([pick, outcome, amountCents]) => new CloseCase(pick, 'sandbox', outcome, outcome === 'accepted' ? amountCents : undefined)),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.nat().map((pick) => new CloseCase(pick, 'operator', 'rejected')),
      fc.tuple(fc.nat(), someAmount).map(([pick, amountCents]) => new CloseCase(pick, 'operator', 'accepted', amountCents)),
    ),
  },
  { weight: 2, arbitrary: fc.integer({ min: 100, max: 1500 }).map((amountCents) => new Withdraw(amountCents)) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 800 }).map((amountCents) => new Credit(amountCents)) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 800 }).map((amountCents) => new Hold(amountCents)) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom('release' as const, 'return' as const)).map(([pick, end]) => new EndHold(pick, end)),
  },
  { weight: 2, arbitrary: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.constant(45)).map((days) => new Wait(days)) },
  { weight: 1, arbitrary: fc.constant(new AnalyzeOverdue()) },
);

/** Most runs start from a paid charge: the refunds and MED cases are the subject. */
const startsPaid = fc.constantFrom(true, true, true, false);

/** No fee on either side, and withdrawals limited by the balance alone. */
const MERCHANT = {
  fees: { ...NO_CHARGE_FEES.fees, withdrawal: { fixedCents: 0, bps: 0, minCents: 0, maxCents: 0 } },
  limits: { withdrawPerSecond: 1000, withdrawPerMinute: 1000, withdrawPerHour: 1000 },
};

/** A fresh merchant (no fees, funded or not) and its charge, pending or paid already. */
async function setup(paid: boolean, funds: number): Promise<{ model: Model; real: Real }> {
  const merchant = await gateway.createMerchant(MERCHANT);
  if (funds > 0) await fund(gateway, merchant, funds);
  const transactionId = await createCharge(gateway, merchant);
  const model: Model = { now: 0, status: 'pending', paidAt: null, refundedCents: 0, refunds: [], cases: [], events: [], available: funds, holds: new Map() };
  const real = { merchant, transactionId };
  if (paid) {
    const reply = await call(real, 'POST', `/sandbox/v1/pix/${transactionId}/pay`);
    expectAnswered(reply, 200);
    model.status = 'paid';
    model.paidAt = 0;
    model.available += AMOUNT;
    emit(model, 'transaction.paid');
  }
  await verify(model, real);
  return { model, real };
}

describe('a charge driven by random refunds, MED 2.0 cases, withdrawals, credits and moves', () => {
  it('agrees with the model after every step', async () => {
    await fc.assert(
      fc.asyncProperty(startsPaid, fc.constantFrom(...FUNDS), fc.commands([command], { maxCommands: 25, size: 'max' }), async (paid, funds, steps) => {
        await fc.asyncModelRun(() => setup(paid, funds), steps);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
