import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAccountBody, patchAccountBody } from '../accounts/adminSchemas.js';
import { LIMIT_NAMES, presentAccount } from '../accounts/model.js';
import { checked, field, fieldsOf, idParam } from '../pages/forms.js';
import { InvalidRequestError } from '../errors.js';
import { adjustmentBody, blockBody } from '../ledger/schemas.js';
import { messages } from '../messages.js';
import { operatorMayDo } from '../operators/roles.js';
import type { OperatorSession } from '../operators/service.js';
import { parseBrl } from '../pix/money.js';
import { inviteUserBody } from '../users/schemas.js';
import { AccountPage, AccountsPage, type AccountData } from './accountViews.js';
import { PAGE_ROWS, type BackofficeKit, type BackofficeServices } from './kit.js';

type Outcome = { error?: string; notice?: string; invited?: AccountData['invited'] };

/** A form's whole number ('' = not given); anything else is refused with the field's name. */
function wholeNumber(text: string, name: string): number | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  if (!/^\d{1,15}$/.test(value)) throw new InvalidRequestError(messages.wholeNumberInvalid(name));
  return Number(value);
}

/** A form's values of a name given once or many times (checkboxes). */
function values(body: unknown, name: string): string[] {
  const value: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** An amount in reais, signed ('-10,00' debits); NaN when it is not one. */
function signedAmount(text: string): number {
  const trimmed = text.trim();
  return trimmed.startsWith('-') ? -parseBrl(trimmed.slice(1)) : parseBrl(trimmed);
}

/** The Configuração form as the API's PATCH body: mode, allowlist, key types, limits and fees. */
function configurationPatch(body: unknown) {
  const limits = Object.fromEntries(LIMIT_NAMES.map((name) => [name, wholeNumber(field(body, `limits.${name}`), `limits.${name}`)]));
  const fee = (plan: 'pixIn' | 'withdrawal') =>
    Object.fromEntries(
      ['fixedCents', 'bps', 'minCents', 'maxCents'].map((part) => [part, wholeNumber(field(body, `fees.${plan}.${part}`), `fees.${plan}.${part}`)]),
    );
  return {
    withdrawalMode: field(body, 'withdrawalMode'),
    ipAllowlist: field(body, 'ipAllowlist')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean),
    allowedPixKeyTypes: values(body, 'allowedPixKeyTypes'),
    recipientLimit: wholeNumber(field(body, 'recipientLimit'), 'recipientLimit'),
    limits,
    fees: { pixIn: fee('pixIn'), withdrawal: fee('withdrawal') },
  };
}

/**
 * Contas (DESIGN.md §11): the list, a new account, and one account's page with every operator
 * action on it — KYC and block, configuration, balance blocks, adjustments, dashboard users,
 * webhook resends — each the operator API's, audited as it.
 */
export const accountPages =
  (kit: BackofficeKit, { accounts, ledger, users, webhooks }: BackofficeServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asOperator, send, contextOf, attempt, checkCsrf, act, redirect } = kit;

    const accountsView = async (request: FastifyRequest, reply: FastifyReply, operator: OperatorSession, error?: string) => {
      const search = field(request.query, 'busca').trim().slice(0, 120);
      const rows = await accounts.list({ search: search || undefined, limit: PAGE_ROWS });
      const list = rows.map((row) => ({
        accountId: row.id,
        name: row.name,
        email: row.email,
        kycStatus: row.kycStatus,
        blocked: row.blocked,
        withdrawalMode: row.withdrawalMode,
        createdAt: row.createdAt.getTime(),
      }));
      return (
        <AccountsPage context={contextOf(reply, operator)} accounts={list} search={search} mayCreate={operatorMayDo(operator.role, 'accounts')} error={error} />
      );
    };

    app.get(
      '/contas',
      asOperator(async (request, reply, operator) => send(reply, accountsView(request, reply, operator))),
    );

    app.post(
      '/contas',
      { preHandler: checkCsrf },
      asOperator(async (request, reply, operator) => {
        const form = fieldsOf(request.body, ['name', 'email', 'city', 'responsibleName', 'responsibleCpf', 'legalName', 'cnpj']);
        let accountId = '';
        const ok = await attempt(
          reply,
          async () => {
            const input = checked(createAccountBody, {
              name: form.name,
              email: form.email.trim(),
              city: form.city.trim() || undefined,
              responsible: { name: form.responsibleName, cpf: form.responsibleCpf },
              company: form.legalName.trim() || form.cnpj.trim() ? { legalName: form.legalName, cnpj: form.cnpj } : undefined,
            });
            const created = await act(operator, 'accounts', { action: 'POST /admin/v1/accounts', input }, async () =>
              presentAccount(await accounts.createAccount(input)),
            );
            accountId = created.accountId;
          },
          (error) => accountsView(request, reply, operator, error),
        );
        return ok ? redirect(reply, `/backoffice/contas/${accountId}`) : reply;
      }),
    );

    const accountIdOf = (request: FastifyRequest) => idParam(request.params, 'accountId', messages.accountNotFound);

    /** One account's page as it stands, with what the last action left to show. */
    const accountView = async (reply: FastifyReply, operator: OperatorSession, accountId: string, outcome: Outcome = {}) => {
      const account = presentAccount(await accounts.getAccount(accountId));
      const [balance, blocks, members, { attempts }] = await Promise.all([
        ledger.balanceOf(accountId),
        ledger.listBlocks(accountId),
        users.listMembers(accountId),
        webhooks.listAttempts(accountId, { limit: 50 }),
      ]);
      const data: AccountData = {
        account,
        balance,
        blocks,
        members,
        attempts: attempts.map((attempt) => ({
          deliveryId: attempt.deliveryId,
          event: attempt.event,
          url: attempt.url,
          status: attempt.deliveryStatus,
          httpStatus: attempt.httpStatus,
          error: attempt.error,
          at: attempt.attemptedAt,
        })),
        may: {
          kyc: operatorMayDo(operator.role, 'kyc'),
          accounts: operatorMayDo(operator.role, 'accounts'),
          blocks: operatorMayDo(operator.role, 'blocks'),
          adjustments: operatorMayDo(operator.role, 'adjustments'),
          webhookResend: operatorMayDo(operator.role, 'webhookResend'),
        },
        invited: outcome.invited,
      };
      return <AccountPage context={contextOf(reply, operator)} data={data} error={outcome.error} notice={outcome.notice} />;
    };

    app.get(
      '/contas/:accountId',
      asOperator(async (request, reply, operator) => send(reply, accountView(reply, operator, accountIdOf(request)))),
    );

    /** An action on the account: done and audited, then its page again with the outcome (or the refusal). */
    const accountAction = (path: string, action: (request: FastifyRequest, operator: OperatorSession, accountId: string) => Promise<Omit<Outcome, 'error'>>) =>
      app.post(
        `/contas/:accountId/${path}`,
        { preHandler: checkCsrf },
        asOperator(async (request, reply, operator) => {
          const accountId = accountIdOf(request);
          let outcome: Outcome = {};
          const ok = await attempt(
            reply,
            async () => (outcome = await action(request, operator, accountId)),
            (error) => accountView(reply, operator, accountId, { error }),
          );
          return ok ? send(reply, accountView(reply, operator, accountId, outcome)) : reply;
        }),
      );

    /** A PATCH of the account, as the API's: its before and after in the audit log. */
    const patchAccount = async (operator: OperatorSession, accountId: string, permission: 'kyc' | 'accounts', body: unknown) => {
      const patch = checked(patchAccountBody, body);
      const before = presentAccount(await accounts.getAccount(accountId));
      await act(operator, permission, { action: 'PATCH /admin/v1/accounts/:accountId', accountId, objectId: accountId, input: patch, before }, async () =>
        presentAccount(await accounts.patchAccount(accountId, patch)),
      );
      return { notice: messages.accountSaved };
    };

    accountAction('situacao', (request, operator, accountId) =>
      patchAccount(operator, accountId, 'kyc', {
        kycStatus: field(request.body, 'kycStatus'),
        blocked: field(request.body, 'blocked') === 'true',
        emailVerified: field(request.body, 'emailVerified') === 'true',
      }),
    );

    accountAction('configuracao', (request, operator, accountId) => patchAccount(operator, accountId, 'accounts', configurationPatch(request.body)));

    accountAction('bloqueios', async (request, operator, accountId) => {
      const input = checked(blockBody, { amountCents: parseBrl(field(request.body, 'amount')), reason: field(request.body, 'reason') });
      await act(operator, 'blocks', { action: 'POST /admin/v1/accounts/:accountId/blocks', accountId, input }, () =>
        ledger.createBlock(accountId, input.amountCents, input.reason),
      );
      return { notice: messages.blockPlaced };
    });

    accountAction('bloqueios/:blockId/liberar', async (request, operator, accountId) => {
      const blockId = idParam(request.params, 'blockId', messages.blockNotFound);
      await act(operator, 'blocks', { action: 'DELETE /admin/v1/blocks/:blockId', accountId, objectId: blockId }, async () => {
        await ledger.releaseBlock(blockId, accountId);
        return { blockId, status: 'released' };
      });
      return { notice: messages.blockReleased };
    });

    accountAction('ajustes', async (request, operator, accountId) => {
      const input = checked(adjustmentBody, { amountCents: signedAmount(field(request.body, 'amount')), reason: field(request.body, 'reason') });
      await act(operator, 'adjustments', { action: 'POST /admin/v1/accounts/:accountId/adjustments', accountId, input }, () =>
        ledger.adjust(accountId, input.amountCents, input.reason),
      );
      return { notice: messages.adjustmentPosted };
    });

    accountAction('usuarios', async (request, operator, accountId) => {
      const input = checked(inviteUserBody, fieldsOf(request.body, ['email', 'role']));
      const invitation = await act(operator, 'accounts', { action: 'POST /admin/v1/accounts/:accountId/users', accountId, input }, () =>
        users.invite(accountId, input),
      );
      return { invited: { email: input.email, inviteUrl: invitation.inviteUrl } };
    });

    accountAction('webhooks/:deliveryId/reenviar', async (request, operator, accountId) => {
      const deliveryId = idParam(request.params, 'deliveryId', messages.webhookDeliveryNotFound);
      await act(operator, 'webhookResend', { action: 'POST /admin/v1/webhook-deliveries/:deliveryId/resend', accountId, objectId: deliveryId }, () =>
        webhooks.resend(deliveryId, accountId),
      );
      return { notice: messages.webhookResendQueued };
    });
  };
