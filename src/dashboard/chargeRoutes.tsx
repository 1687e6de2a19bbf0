import type { FastifyInstance, FastifyReply } from 'fastify';
import { createChargeBody, createDueChargeBody } from '../charges/schemas.js';
import { NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { parseBrl } from '../pix/money.js';
import { presentInfraction } from '../infractions/presenter.js';
import { presentRefund } from '../refunds/presenter.js';
import { createRefundBody } from '../refunds/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { CHARGE, allows } from '../transactions/states.js';
import { CHARGE_STATUSES } from '../platform/schema.js';
import { assertMayDo, assertTotpEnrolled, mayDo } from '../users/roles.js';
import type { SessionUser } from '../users/service.js';
import { NO_FILTER, parseListFilter, type ListFilterForm } from '../pages/filters.js';
import { checked, field, fieldsOf } from '../pages/forms.js';
import type { DashboardKit, DashboardServices } from './kit.js';
import { ChargePage, ChargesPage, DueChargePage, EMPTY_DUE_CHARGE_FORM, type ChargeForm, type DueChargeForm, type RefundForm } from './chargeViews.js';

/** Cobranças (DESIGN.md §10): list with filters, create, a charge with its QR, cancel and refund. */
export const chargePages =
  (kit: DashboardKit, { charges, transactions, accounts, refunds, users, infractions }: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asUser, send, contextOf, attempt, redirect, checkCsrf, filteredPage } = kit;

    /** The Cobranças page: the charges the filters select, and the form (as typed, after a refusal). */
    const chargesView = async (reply: FastifyReply, user: SessionUser, extra: { filter?: ListFilterForm; form?: ChargeForm; error?: string } = {}) => {
      const filter = extra.filter ?? NO_FILTER;
      const { rows } = await transactions.page(user.accountId, { type: 'pix_in', ...parseListFilter(filter, CHARGE_STATUSES), limit: 50 });
      return (
        <ChargesPage
          context={contextOf(reply, user)}
          charges={rows.map(presentTransaction)}
          filter={filter}
          mayCreate={mayDo(user.role, 'charges')}
          form={extra.form}
          error={extra.error}
        />
      );
    };

    app.get(
      '/cobrancas',
      asUser(async (request, reply, user) => filteredPage(request, reply, (filter, error) => chargesView(reply, user, { filter, error }))),
    );

    app.post(
      '/cobrancas',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const form: ChargeForm = fieldsOf(request.body, ['amount', 'name', 'email', 'phone', 'document', 'documentType']);
        let transactionId = '';
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'charges');
            const body = checked(createChargeBody, {
              amountCents: parseBrl(form.amount),
              customer: {
                name: form.name,
                email: form.email.trim(),
                phone: form.phone.replace(/\D/g, ''),
                document: { number: form.document, type: form.documentType },
              },
            });
            transactionId = (await charges.createCharge(await accounts.getAccount(user.accountId), body)).charge.transactionId;
          },
          (error) => chargesView(reply, user, { form, error }),
        );
        return ok ? redirect(reply, `/dashboard/cobrancas/${transactionId}`) : reply;
      }),
    );

    /** New charge with a due date: the form, with the API's rules and messages. */
    app.get(
      '/cobrancas/vencimento',
      asUser(async (_request, reply, user) =>
        send(reply, <DueChargePage context={contextOf(reply, user)} form={EMPTY_DUE_CHARGE_FORM} mayCreate={mayDo(user.role, 'charges')} />),
      ),
    );

    app.post(
      '/cobrancas/vencimento',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const form: DueChargeForm = fieldsOf(request.body, [
          'amount',
          'name',
          'document',
          'documentType',
          'dueDate',
          'validity',
          'fine',
          'interest',
          'discount',
          'discountUntil',
        ]);
        let transactionId = '';
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'charges');
            const body = checked(createDueChargeBody, {
              amountCents: parseBrl(form.amount),
              customer: { name: form.name, document: { number: form.document, type: form.documentType } },
              dueDate: form.dueDate,
              validityAfterDueDays: Number(form.validity.trim() || Number.NaN),
              ...(form.fine.trim() ? { fine: { percent: percentOf(form.fine) } } : {}),
              ...(form.interest.trim() ? { interest: { percent: percentOf(form.interest), per: 'month' } } : {}),
              ...(form.discount.trim() || form.discountUntil
                ? { discount: { until: [{ date: form.discountUntil, amountCents: parseBrl(form.discount) }] } }
                : {}),
            });
            transactionId = (await charges.createDueCharge(await accounts.getAccount(user.accountId), body)).charge.transactionId;
          },
          (error) => <DueChargePage context={contextOf(reply, user)} form={form} mayCreate={mayDo(user.role, 'charges')} error={error} />,
        );
        return ok ? redirect(reply, `/dashboard/cobrancas/${transactionId}`) : reply;
      }),
    );

    /** A charge id as the services take it: a malformed one is not found, before any query. */
    const chargeIdOf = (id: string) => {
      if (!isId(id)) throw new NotFoundError(messages.transactionNotFound);
      return id;
    };

    /** One of the account's charges; anything else (a withdrawal, another account's, a malformed id) is not found. */
    const chargeOf = async (user: SessionUser, id: string) => {
      const row = await transactions.get(user.accountId, chargeIdOf(id));
      if (row.type !== 'pix_in') throw new NotFoundError(messages.transactionNotFound);
      return row;
    };

    /** A charge's page: its figures, QR, refunds, and the actions its status and the user's role allow. */
    const chargeView = async (reply: FastifyReply, user: SessionUser, id: string, extra: { notice?: string; error?: string; refund?: RefundForm } = {}) => {
      const charge = await chargeOf(user, id);
      const [chargeRefunds, disputes, { customer }] = await Promise.all([
        refunds.list(user.accountId, charge.id),
        infractions.listOfCharge(user.accountId, charge.id),
        charges.findCharge(user.accountId, charge.id),
      ]);
      const today = charge.due ? (await charges.amountDue(user.accountId, charge.id)).amount : undefined;
      return (
        <ChargePage
          context={contextOf(reply, user)}
          charge={presentTransaction(charge)}
          refunds={chargeRefunds.map(presentRefund)}
          customer={customer}
          disputes={disputes.map(presentInfraction)}
          // A cycle's charge is not cancelled as a plain charge (the service refuses it): its recurrence's page cancels.
          mayCancel={mayDo(user.role, 'charges') && allows(CHARGE.cancel, charge.status) && charge.recurrenceId === null}
          mayRefund={mayDo(user.role, 'refunds') && allows(CHARGE.refundInPart, charge.status) && charge.holdStatus !== 'held'}
          totpEnrolled={user.totpEnrolled}
          amountDueToday={today?.payable ? today.amountDueCents : undefined}
          refund={extra.refund}
          notice={extra.notice}
          error={extra.error}
        />
      );
    };

    app.get(
      '/cobrancas/:id',
      asUser(async (request, reply, user) => send(reply, chargeView(reply, user, field(request.params, 'id')))),
    );

    app.post(
      '/cobrancas/:id/cancelar',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const id = field(request.params, 'id');
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'charges');
            // The service finds the account's charge under its lock: another's or a withdrawal is not found there.
            await charges.cancelCharge(chargeIdOf(id), user.accountId);
          },
          (error) => chargeView(reply, user, id, { error }),
        );
        return ok ? send(reply, chargeView(reply, user, id, { notice: messages.chargeCancelled })) : reply;
      }),
    );

    // Money leaves the account: the owner or finance, with a fresh code from the authenticator (as a withdrawal).
    app.post(
      '/cobrancas/:id/devolver',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const id = field(request.params, 'id');
        const form: RefundForm = fieldsOf(request.body, ['amount', 'reason']);
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'refunds');
            assertTotpEnrolled(user);
            await chargeOf(user, id); // before the code: another account's charge must not use one up
            const body = checked(createRefundBody, {
              amountCents: form.amount.trim() === '' ? undefined : parseBrl(form.amount),
              reason: form.reason.trim() === '' ? undefined : form.reason.trim(),
            });
            await users.verifyCode(user.userId, field(request.body, 'code'));
            await refunds.create(user.accountId, id, { amountCents: body?.amountCents, reason: body?.reason ?? undefined });
          },
          (error) => chargeView(reply, user, id, { error, refund: form }),
        );
        return ok ? send(reply, chargeView(reply, user, id, { notice: messages.refundRequested })) : reply;
      }),
    );

    app.get(
      '/cobrancas/:id/qrcode.png',
      asUser(async (request, reply, user) => {
        const image = await charges.qrImage(user.accountId, chargeIdOf(field(request.params, 'id')), 'png', 256);
        return reply.type(image.contentType).header('cache-control', 'private, max-age=3600').send(image.body);
      }),
    );
  };

/** A percentage as a person types it in Brazil (2,5 or 2.5); NaN when it is not one, which the API's rules refuse. */
function percentOf(text: string): number {
  const value = text.trim().replace('%', '').trim().replace(',', '.');
  return /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
}
