import type { FastifyInstance, FastifyReply } from 'fastify';
import { messages } from '../messages.js';
import { parseBrl } from '../pix/money.js';
import { presentStaticQr } from '../staticqr/presenter.js';
import { createStaticQrBody } from '../staticqr/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { assertMayDo, mayDo } from '../users/roles.js';
import type { SessionUser } from '../users/service.js';
import { checked, fieldsOf, idParam } from '../pages/forms.js';
import type { DashboardKit, DashboardServices } from './kit.js';
import { StaticQrCodePage, StaticQrCodesPage, type StaticQrForm } from './staticQrViews.js';

/** The payments a code's page lists (the latest; the count says how many in all). */
const PAYMENT_ROWS = 50;

/**
 * QR Codes estáticos (DESIGN.md §17): the account's codes, a new one, a code's page with its QR
 * and the PIX paid to it, deactivation. The API's schema and service (POST /v1/pix/static and
 * its siblings); creating and deactivating are for the roles that create charges.
 */
export const staticQrPages =
  (kit: DashboardKit, { staticQr, accounts }: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asUser, send, contextOf, attempt, redirect, checkCsrf } = kit;

    /** The list, and the form (as typed, after a refusal). */
    const codesView = async (reply: FastifyReply, user: SessionUser, extra: { form?: StaticQrForm; error?: string } = {}) => {
      const codes = await staticQr.list(user.accountId);
      const payments = await staticQr.paymentCounts(
        user.accountId,
        codes.map((code) => code.id),
      );
      return (
        <StaticQrCodesPage
          context={contextOf(reply, user)}
          codes={codes.map(presentStaticQr)}
          payments={payments}
          mayCreate={mayDo(user.role, 'charges')}
          form={extra.form}
          error={extra.error}
        />
      );
    };

    app.get(
      '/qr-estaticos',
      asUser(async (_request, reply, user) => send(reply, codesView(reply, user))),
    );

    app.post(
      '/qr-estaticos',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const form: StaticQrForm = fieldsOf(request.body, ['amount', 'description', 'txid']);
        let codeId = '';
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'charges');
            // Empty fields are absent from the API's body: no fixed amount, no description, a txid of ours.
            const body = checked(createStaticQrBody, {
              amountCents: form.amount.trim() === '' ? undefined : parseBrl(form.amount),
              description: form.description.trim() === '' ? undefined : form.description,
              txid: form.txid.trim() === '' ? undefined : form.txid.trim(),
            });
            codeId = (await staticQr.create(await accounts.getAccount(user.accountId), body)).code.id;
          },
          (error) => codesView(reply, user, { form, error }),
        );
        return ok ? redirect(reply, `/dashboard/qr-estaticos/${codeId}`) : reply;
      }),
    );

    /** A code id as the service takes it: a malformed one is not found, before any query. */
    const codeIdOf = (params: unknown) => idParam(params, 'id', messages.staticQrNotFound);

    /** A code's page; another account's code is not found (404), as the API's. */
    const codeView = async (reply: FastifyReply, user: SessionUser, id: string, extra: { notice?: string; error?: string } = {}) => {
      const code = await staticQr.get(user.accountId, id);
      const [payments, counts] = await Promise.all([
        staticQr.payments(user.accountId, code.id, PAYMENT_ROWS),
        staticQr.paymentCounts(user.accountId, [code.id]),
      ]);
      return (
        <StaticQrCodePage
          context={contextOf(reply, user)}
          code={presentStaticQr(code)}
          payments={payments.map(presentTransaction)}
          paymentCount={counts.get(code.id) ?? 0}
          mayDeactivate={mayDo(user.role, 'charges')}
          notice={extra.notice}
          error={extra.error}
        />
      );
    };

    app.get(
      '/qr-estaticos/:id',
      asUser(async (request, reply, user) => send(reply, codeView(reply, user, codeIdOf(request.params)))),
    );

    app.post(
      '/qr-estaticos/:id/desativar',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const id = codeIdOf(request.params);
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'charges');
            await staticQr.deactivate(user.accountId, id);
          },
          (error) => codeView(reply, user, id, { error }),
        );
        return ok ? send(reply, codeView(reply, user, id, { notice: messages.staticQrDeactivatedNotice })) : reply;
      }),
    );

    app.get(
      '/qr-estaticos/:id/qrcode.png',
      asUser(async (request, reply, user) => {
        const image = await staticQr.qrImage(user.accountId, codeIdOf(request.params), 'png', 256);
        return reply.type(image.contentType).header('cache-control', 'private, max-age=3600').send(image.body);
      }),
    );
  };
