import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { parseBrl } from '../pix/money.js';
import { createRecipientBody } from '../recipients/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { WITHDRAWAL_STATUSES } from '../platform/schema.js';
import { assertMayDo, assertTotpEnrolled, mayDo } from '../users/roles.js';
import type { SessionUser } from '../users/service.js';
import { withdrawalBodyFor } from '../withdrawals/schemas.js';
import { NO_FILTER, parseListFilter, type ListFilterForm } from '../pages/filters.js';
import { checked, field, fieldsOf } from '../pages/forms.js';
import { RecipientsPage, WithdrawalsPage, type RecipientForm, type WithdrawalForm } from './moneyViews.js';
import type { DashboardKit, DashboardServices } from './kit.js';
import { WithdrawalPage } from './withdrawalViews.js';

/** Saques and Destinatários (DESIGN.md §10): money out, on the same services and rules as POST /v1/withdraw and /v1/recipients. */
export const moneyPages =
  (kit: DashboardKit, { transactions, withdrawals, recipients, accounts, ledger, users }: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asUser, send, contextOf, attempt, checkCsrf, filteredPage } = kit;

    const withdrawalsView = async (
      reply: FastifyReply,
      user: SessionUser,
      extra: { filter?: ListFilterForm; form?: WithdrawalForm; error?: string; notice?: string } = {},
    ) => {
      const filter = extra.filter ?? NO_FILTER;
      const [rows, balance, approved] = await Promise.all([
        transactions.page(user.accountId, { type: 'withdrawal', ...parseListFilter(filter, WITHDRAWAL_STATUSES), limit: 50 }),
        ledger.balanceOf(user.accountId),
        recipients.listApproved(user.accountId),
      ]);
      return (
        <WithdrawalsPage
          context={contextOf(reply, user)}
          withdrawals={rows.rows.map(presentTransaction)}
          withdrawableCents={balance.withdrawable}
          recipients={approved.recipients}
          filter={filter}
          mayWithdraw={mayDo(user.role, 'withdrawals')}
          totpEnrolled={user.totpEnrolled}
          form={extra.form}
          error={extra.error}
          notice={extra.notice}
        />
      );
    };

    app.get(
      '/saques',
      asUser(async (request, reply, user) => filteredPage(request, reply, (filter, error) => withdrawalsView(reply, user, { filter, error }))),
    );

    // A withdrawal's page; another account's (or a charge's, or a malformed id) is the 404 page, as in the API.
    app.get(
      '/saques/:id',
      asUser(async (request, reply, user) => {
        const id = field(request.params, 'id');
        if (!isId(id)) throw new NotFoundError(messages.transactionNotFound);
        const { withdrawal, failure } = await withdrawals.detail(user.accountId, id);
        if (withdrawal.pixKey === null || withdrawal.pixKeyType === null) throw new NotFoundError(messages.transactionNotFound);
        const destination = {
          pixKey: withdrawal.pixKey,
          pixKeyType: withdrawal.pixKeyType,
          holder: withdrawal.expectedHolder,
          recipientId: withdrawal.recipientId,
        };
        return send(
          reply,
          <WithdrawalPage context={contextOf(reply, user)} withdrawal={presentTransaction(withdrawal)} destination={destination} failure={failure} />,
        );
      }),
    );

    // DESIGN.md §10: every dashboard withdrawal needs an enrolled TOTP and a fresh code (the API needs only the key).
    app.post(
      '/saques',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const form: WithdrawalForm = fieldsOf(request.body, ['amount', 'recipientId', 'pixKeyType', 'pixKey', 'description']);
        let notice = '';
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'withdrawals');
            assertTotpEnrolled(user);
            const account = await accounts.getAccount(user.accountId);
            const body = checked(withdrawalBodyFor(account.limits), {
              amountCents: parseBrl(form.amount),
              pixKey: form.pixKey,
              pixKeyType: form.pixKeyType,
              description: form.description.trim() === '' ? undefined : form.description,
              recipientId: form.recipientId === '' ? undefined : form.recipientId,
            });
            await users.verifyCode(user.userId, field(request.body, 'code'));
            const { outcome, withdrawal } = await withdrawals.createWithdrawal(account, body);
            notice =
              outcome === 'indeterminate'
                ? messages.withdrawalIndeterminate
                : withdrawal.status === 'pending_approval'
                  ? messages.withdrawalAwaitingApproval
                  : messages.withdrawalSent;
          },
          (error) => withdrawalsView(reply, user, { form, error }),
        );
        return ok ? send(reply, withdrawalsView(reply, user, { notice })) : reply;
      }),
    );

    const recipientsView = async (reply: FastifyReply, user: SessionUser, extra: { form?: RecipientForm; error?: string; notice?: string } = {}) => (
      <RecipientsPage
        context={contextOf(reply, user)}
        recipients={await recipients.listForMerchant(user.accountId)}
        mayRegister={mayDo(user.role, 'withdrawals')}
        form={extra.form}
        error={extra.error}
        notice={extra.notice}
      />
    );

    app.get(
      '/destinatarios',
      asUser(async (_request, reply, user) => send(reply, recipientsView(reply, user))),
    );

    // A recipient is a destination for money: the roles that withdraw register them; the service team approves.
    app.post(
      '/destinatarios',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const form: RecipientForm = fieldsOf(request.body, ['legalName', 'document', 'documentType', 'pixKeyType', 'pixKey', 'label']);
        let notice = '';
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'withdrawals');
            const body = checked(createRecipientBody, { ...form, label: form.label.trim() === '' ? undefined : form.label });
            notice = (await recipients.register(user.accountId, body)).note;
          },
          (error) => recipientsView(reply, user, { form, error }),
        );
        return ok ? send(reply, recipientsView(reply, user, { notice })) : reply;
      }),
    );
  };
