import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { messages } from '../messages.js';
import { checked, field, fieldsOf, idParam } from '../pages/forms.js';
import { pageStack } from '../pages/siteRoutes.js';
import { isId } from '../platform/ids.js';
import { inviteOperatorBody, operatorRoleBody } from '../operators/schemas.js';
import { assertOperatorMayDo, operatorMayDo } from '../operators/roles.js';
import { operatorActor, type OperatorSession } from '../operators/service.js';
import { PAGE_ROWS, type BackofficeKit, type BackofficeServices } from './kit.js';
import { accountPages } from './accountRoutes.js';
import { historyPages } from './historyRoutes.js';
import { fraudMarkPages } from './fraudMarkRoutes.js';
import { providerPages } from './providerRoutes.js';
import { queuePages } from './queueRoutes.js';
import { AuditPage } from './auditViews.js';
import { AlertsPage, backofficeSite, OperatorsPage, ProviderSendsPage, QueuesPage, type OperatorsData, type QueueCounts } from './views.js';

/** The account an action's result names (a withdrawal, a MED case), for the audit log. */
function accountIdIn(after: unknown): string | null {
  if (typeof after !== 'object' || after === null) return null;
  const accountId: unknown = Reflect.get(after, 'accountId');
  return typeof accountId === 'string' ? accountId : null;
}

/** A form's fields without its CSRF token: what the operator asked, for the audit log. */
function withoutFormToken(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([name]) => name !== '_csrf'));
}

/**
 * The service team's back-office (DESIGN.md §11) at /backoffice: the same page stack as the
 * merchant dashboard and the same services as the operator API; every change is audited.
 */
export const backofficeRoutes =
  (services: BackofficeServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { operators, audit, alerts, recipients, withdrawals, infractions, providerSends, config } = services;
    const counts = new WeakMap<FastifyRequest, QueueCounts>();
    const page = await pageStack(app, {
      site: '/backoffice',
      siteFor: (request) => backofficeSite(counts.get(request)),
      sessionCookie: 'svc_backoffice_session',
      csrfCookie: 'svc_backoffice_csrf',
      signIn: operators,
      config,
    });
    const queueCounts = async (): Promise<QueueCounts> => {
      const [recipientCount, withdrawalCount, disputeCount, sendCount] = await Promise.all([
        recipients.countForReview(),
        withdrawals.countAwaitingApproval(),
        infractions.countOpen(),
        providerSends.countNeedingOperator(),
      ]);
      return { recipients: recipientCount, withdrawals: withdrawalCount, disputes: disputeCount, sends: sendCount };
    };
    const kit: BackofficeKit = {
      ...page,
      asOperator: (handler) =>
        page.asUser(async (request, reply, operator) => {
          counts.set(request, await queueCounts());
          return handler(request, reply, operator);
        }),
      refreshCounts: async (request) => {
        counts.set(request, await queueCounts());
      },
      act: async (operator, permission, audited, run) => {
        assertOperatorMayDo(operator, permission);
        const after = await run();
        await audit.record({
          actor: operatorActor(operator.operatorId),
          action: audited.action,
          accountId: audited.accountId ?? accountIdIn(after),
          objectId: audited.objectId ?? null,
          changes: { input: withoutFormToken(audited.input), before: audited.before, after: after ?? undefined },
        });
        return after;
      },
    };
    const { send, contextOf, attempt, asOperator, checkCsrf, act } = kit;
    await app.register(queuePages(kit, services));
    await app.register(accountPages(kit, services));
    await app.register(providerPages(kit, services));
    await app.register(historyPages(kit, services));
    await app.register(fraudMarkPages(kit, services));

    app.get(
      '/',
      asOperator(async (request, reply, operator) => {
        const [queue, waiting, running, unresolved] = await Promise.all([
          recipients.listForOperator({ status: 'pending_review', limit: 5 }),
          withdrawals.listAwaitingApproval(5),
          infractions.listRunning(5),
          providerSends.needingOperator(5),
        ]);
        const current = counts.get(request) ?? (await queueCounts());
        const data = {
          oldest: [
            {
              title: 'Destinatários em análise',
              href: '/backoffice/destinatarios',
              count: current.recipients,
              items: queue.recipients.map((recipient) => ({
                href: '/backoffice/destinatarios',
                label: recipient.legalName,
                accountId: recipient.accountId,
                since: recipient.updatedAt,
              })),
            },
            {
              title: 'Saques aguardando aprovação',
              href: '/backoffice/saques',
              count: current.withdrawals,
              items: waiting.map((row) => ({
                href: '/backoffice/saques',
                label: `Saque ${row.id.slice(0, 8)}…`,
                accountId: row.accountId,
                since: row.createdAt.getTime(),
              })),
            },
            {
              title: 'Casos MED em andamento',
              href: '/backoffice/med',
              count: current.disputes,
              items: running.map((row) => ({
                href: '/backoffice/med',
                label: `Caso ${row.id.slice(0, 8)}…`,
                accountId: row.accountId,
                since: row.openedAt.getTime(),
              })),
            },
            {
              title: 'Envios ao PSP sem desfecho',
              href: '/backoffice/envios',
              count: current.sends,
              items: unresolved.map((send) => ({
                href: '/backoffice/envios',
                label: `${send.kind === 'withdrawal' ? 'Saque' : 'Devolução'} ${send.sendId.slice(0, 8)}…`,
                accountId: send.accountId,
                since: send.createdAt,
              })),
            },
          ],
        };
        return send(reply, <QueuesPage context={contextOf(reply, operator)} data={data} />);
      }),
    );

    app.get(
      '/envios',
      asOperator(async (request, reply, operator) => {
        const sends = await providerSends.needingOperator(PAGE_ROWS);
        return send(reply, <ProviderSendsPage context={contextOf(reply, operator)} sends={sends} />);
      }),
    );

    app.get(
      '/alertas',
      asOperator(async (request, reply, operator) => {
        return send(reply, <AlertsPage context={contextOf(reply, operator)} alerts={await alerts.list(undefined, PAGE_ROWS)} />);
      }),
    );

    app.get(
      '/auditoria',
      asOperator(async (request, reply, operator) => {
        const filter = { accountId: field(request.query, 'conta').trim(), actor: field(request.query, 'ator').trim() };
        const valid = filter.accountId === '' || isId(filter.accountId);
        // The actor as stored (admin-token, operator:<id>) or an operator's e-mail.
        const actor = filter.actor.includes('@') ? { operatorEmail: filter.actor } : { actor: filter.actor || undefined };
        const rows = valid ? await audit.list({ accountId: filter.accountId || undefined, ...actor, limit: PAGE_ROWS }) : [];
        const error = valid ? undefined : messages.accountIdInvalid;
        return send(reply, <AuditPage context={contextOf(reply, operator)} entries={rows} filter={filter} error={error} />, valid ? 200 : 400);
      }),
    );

    /** The Operadores page as it stands, with what the last action left to show. */
    const operatorsView = async (
      reply: FastifyReply,
      operator: OperatorSession,
      extra: { error?: string; notice?: string; invited?: OperatorsData['invited'] } = {},
    ) => {
      const data: OperatorsData = {
        operators: await operators.list(),
        mayManage: operatorMayDo(operator.role, 'operators'),
        currentOperatorId: operator.operatorId,
        invited: extra.invited,
      };
      return <OperatorsPage context={contextOf(reply, operator)} data={data} error={extra.error} notice={extra.notice} />;
    };

    app.get(
      '/operadores',
      asOperator(async (request, reply, operator) => send(reply, operatorsView(reply, operator))),
    );

    /** A change to the operators: admin only, audited; a refusal shows the page again with its message. */
    const changeOperators = (
      change: (request: FastifyRequest, operator: OperatorSession) => Promise<{ notice?: string; invited?: OperatorsData['invited'] }>,
    ) =>
      asOperator(async (request, reply, operator) => {
        let outcome: { notice?: string; invited?: OperatorsData['invited'] } = {};
        const ok = await attempt(
          reply,
          async () => (outcome = await change(request, operator)),
          (error) => operatorsView(reply, operator, { error }),
        );
        return ok ? send(reply, operatorsView(reply, operator, outcome)) : reply;
      });

    app.post(
      '/operadores',
      { preHandler: checkCsrf },
      changeOperators(async (request, operator) => {
        const input = checked(inviteOperatorBody, fieldsOf(request.body, ['email', 'role']));
        const invited = await act(operator, 'operators', { action: 'POST /admin/v1/operators', input }, () => operators.invite(input));
        return { invited: { email: input.email, inviteUrl: invited.inviteUrl } };
      }),
    );

    const operatorIdOf = (request: FastifyRequest) => idParam(request.params, 'operatorId', messages.operatorNotFound);

    app.post(
      '/operadores/:operatorId/papel',
      { preHandler: checkCsrf },
      changeOperators(async (request, operator) => {
        const operatorId = operatorIdOf(request);
        const { role } = checked(operatorRoleBody, { role: field(request.body, 'role') });
        const before = (await operators.list()).find((row) => row.operatorId === operatorId);
        await act(operator, 'operators', { action: 'PATCH /backoffice/operators/:operatorId', objectId: operatorId, input: { role }, before }, async () => {
          await operators.changeRole(operatorId, role);
          return { operatorId, role };
        });
        return { notice: messages.memberRoleChanged };
      }),
    );

    app.post(
      '/operadores/:operatorId/remover',
      { preHandler: checkCsrf },
      changeOperators(async (request, operator) => {
        const operatorId = operatorIdOf(request);
        const before = (await operators.list()).find((row) => row.operatorId === operatorId);
        await act(operator, 'operators', { action: 'DELETE /backoffice/operators/:operatorId', objectId: operatorId, before }, async () => {
          await operators.remove(operatorId);
          return { operatorId, removed: true };
        });
        return { notice: messages.memberRemoved };
      }),
    );
  };
