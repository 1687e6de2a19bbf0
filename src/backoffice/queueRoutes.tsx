import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequestError, NotFoundError } from '../errors.js';
import { checked, field, idParam } from '../pages/forms.js';
import { presentInfraction } from '../infractions/presenter.js';
import { presentEvidence, type EvidenceView } from '../infractions/evidenceSchemas.js';
import { sendEvidence } from '../infractions/evidenceRoutes.js';
import { acceptInfractionBody, openInfractionBody } from '../infractions/schemas.js';
import { messages } from '../messages.js';
import { operatorMayDo } from '../operators/roles.js';
import type { OperatorSession } from '../operators/service.js';
import { isId } from '../platform/ids.js';
import type { TransactionRow } from '../platform/schema.js';
import { parseBrl } from '../pix/money.js';
import { approveRecipientBody, recipientReasonBody } from '../recipients/schemas.js';
import { isRecipientId } from '../recipients/service.js';
import { presentTransaction } from '../transactions/presenter.js';
import { DisputesPage, RecipientsQueuePage, WithdrawalsQueuePage, type QueuedWithdrawal } from './queueViews.js';
import { PAGE_ROWS, type BackofficeKit, type BackofficeServices } from './kit.js';

type Outcome = { error?: string; notice?: string };

/** An amount typed in reais, or undefined when left empty (the API's default then). */
const optionalAmount = (text: string): number | undefined => (text.trim() === '' ? undefined : parseBrl(text));

const queued = (row: TransactionRow): QueuedWithdrawal => ({
  transactionId: row.id,
  accountId: row.accountId,
  amountCents: row.amountCents,
  feeCents: row.feeCents,
  createdAt: row.createdAt.getTime(),
  pixKey: row.pixKey,
  pixKeyType: row.pixKeyType,
  recipientId: row.recipientId,
  holderName: row.expectedHolder?.name ?? null,
});

/**
 * The queues a team works (DESIGN.md §6, §9, §11): recipients to review, withdrawals to approve,
 * MED cases to decide; and opening a case. Each action is the operator API's, audited as it.
 */
export const queuePages =
  (kit: BackofficeKit, { recipients, withdrawals, infractions, evidence }: BackofficeServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asOperator, send, contextOf, attempt, checkCsrf, act, refreshCounts } = kit;

    /** A page as it stands after an action: its view with the outcome, or the refusal's message and status. */
    const afterAction =
      (view: (request: FastifyRequest, reply: FastifyReply, operator: OperatorSession, outcome: Outcome) => Promise<JSX.Element>) =>
      (action: (request: FastifyRequest, operator: OperatorSession) => Promise<string>) =>
        asOperator(async (request, reply, operator) => {
          let notice = '';
          const ok = await attempt(
            reply,
            async () => (notice = await action(request, operator)),
            (error) => view(request, reply, operator, { error }),
          );
          if (!ok) return reply;
          await refreshCounts(request);
          return send(reply, view(request, reply, operator, { notice }));
        });

    // Destinatários: the review queue (oldest first) and the active ones.
    const recipientsView = async (request: FastifyRequest, reply: FastifyReply, operator: OperatorSession, outcome: Outcome) => {
      const status = field(request.query, 'status') === 'active' ? 'active' : 'pending_review';
      const accountText = field(request.query, 'conta');
      const accountId = isId(accountText) ? accountText : undefined;
      const { recipients: list } = await recipients.listForOperator({ status, accountId, limit: PAGE_ROWS });
      const data = { status, recipients: list, mayAct: operatorMayDo(operator.role, 'recipients'), accountId } as const;
      return <RecipientsQueuePage context={contextOf(reply, operator)} data={data} error={outcome.error} notice={outcome.notice} />;
    };
    app.get(
      '/destinatarios',
      asOperator(async (request, reply, operator) => send(reply, recipientsView(request, reply, operator, {}))),
    );
    const recipientAction = afterAction(recipientsView);
    const recipientRoute = (path: string, api: string, notice: string, run: (accountId: string, recipientId: string, body: unknown) => Promise<unknown>) =>
      app.post(
        `/destinatarios/:accountId/:recipientId/${path}`,
        { preHandler: checkCsrf },
        recipientAction(async (request, operator) => {
          const accountId = idParam(request.params, 'accountId', messages.recipientNotFound);
          const recipientId = field(request.params, 'recipientId');
          if (!isRecipientId(recipientId)) throw new NotFoundError(messages.recipientNotFound);
          const action = `POST /admin/v1/accounts/:accountId/recipients/:recipientId/${api}`;
          await act(operator, 'recipients', { action, accountId, objectId: recipientId, input: request.body }, () => run(accountId, recipientId, request.body));
          return notice;
        }),
      );
    recipientRoute('aprovar', 'approve', messages.recipientApproved, (accountId, recipientId, body) =>
      recipients.approve(accountId, recipientId, checked(approveRecipientBody, { label: field(body, 'label') })?.label ?? null),
    );
    recipientRoute('recusar', 'reject', messages.recipientRejected, (accountId, recipientId, body) =>
      recipients.reject(accountId, recipientId, checked(recipientReasonBody, { reason: field(body, 'reason') })?.reason || null),
    );
    recipientRoute('desativar', 'deactivate', messages.recipientDeactivatedNotice, (accountId, recipientId, body) =>
      recipients.deactivate(accountId, recipientId, checked(recipientReasonBody, { reason: field(body, 'reason') })?.reason || null),
    );

    // Saques: withdrawals awaiting approval, oldest first.
    const withdrawalsView = async (_request: FastifyRequest, reply: FastifyReply, operator: OperatorSession, outcome: Outcome) => {
      const rows = await withdrawals.listAwaitingApproval(PAGE_ROWS);
      const data = { withdrawals: rows.map(queued), mayAct: operatorMayDo(operator.role, 'withdrawals') };
      return <WithdrawalsQueuePage context={contextOf(reply, operator)} data={data} error={outcome.error} notice={outcome.notice} />;
    };
    app.get(
      '/saques',
      asOperator(async (request, reply, operator) => send(reply, withdrawalsView(request, reply, operator, {}))),
    );
    const withdrawalAction = afterAction(withdrawalsView);
    const withdrawalRoute = (path: string, api: 'approve' | 'reject', notice: string) =>
      app.post(
        `/saques/:id/${path}`,
        { preHandler: checkCsrf },
        withdrawalAction(async (request, operator) => {
          const id = idParam(request.params, 'id', messages.transactionNotFound);
          const row = await act(operator, 'withdrawals', { action: `POST /admin/v1/transactions/:id/${api}`, objectId: id }, async () => {
            const decided = await (api === 'approve' ? withdrawals.approve(id) : withdrawals.reject(id));
            return { ...presentTransaction(decided), accountId: decided.accountId };
          });
          return `${notice} (${row.status})`;
        }),
      );
    withdrawalRoute('aprovar', 'approve', messages.withdrawalApproved);
    withdrawalRoute('recusar', 'reject', messages.withdrawalRejected);

    // MED: running cases, the nearest deadline first.
    const disputesView = async (_request: FastifyRequest, reply: FastifyReply, operator: OperatorSession, outcome: Outcome) => {
      const rows = await infractions.listRunning(PAGE_ROWS);
      const files: Record<string, EvidenceView[]> = {};
      for (const file of await evidence.listForOperator(rows.map((row) => ({ infractionId: row.id, accountId: row.accountId }))))
        (files[file.infractionId] ??= []).push(presentEvidence(file));
      const data = {
        cases: rows.map((row) => ({ ...presentInfraction(row), accountId: row.accountId })),
        evidence: files,
        mayAct: operatorMayDo(operator.role, 'disputes'),
      };
      return <DisputesPage context={contextOf(reply, operator)} data={data} error={outcome.error} notice={outcome.notice} />;
    };
    app.get(
      '/med',
      asOperator(async (request, reply, operator) => send(reply, disputesView(request, reply, operator, {}))),
    );
    // A case's evidence file, for every operator role: a read, not audited (as the other reads).
    app.get(
      '/med/:id/evidencias/:evidenceId',
      asOperator(async (request, reply) => {
        const { evidence: file, bytes } = await evidence.download(
          idParam(request.params, 'id', messages.infractionNotFound),
          idParam(request.params, 'evidenceId', messages.evidenceNotFound),
        );
        return sendEvidence(reply, file, bytes);
      }),
    );
    const disputeAction = afterAction(disputesView);
    app.post(
      '/med',
      { preHandler: checkCsrf },
      disputeAction(async (request, operator) => {
        const transactionId = field(request.body, 'transactionId').trim();
        const input = checked(openInfractionBody, { reason: field(request.body, 'reason'), amountCents: optionalAmount(field(request.body, 'amount')) });
        if (!isId(transactionId)) throw new InvalidRequestError(messages.transactionIdInvalid);
        await act(operator, 'disputes', { action: 'POST /admin/v1/transactions/:id/infractions', objectId: transactionId, input }, async () => {
          const opened = await infractions.open(transactionId, input);
          return { ...presentInfraction(opened), accountId: opened.accountId };
        });
        return messages.infractionOpened;
      }),
    );
    const disputeRoute = (path: string, api: 'analysis' | 'accept' | 'reject', notice: string) =>
      app.post(
        `/med/:id/${path}`,
        { preHandler: checkCsrf },
        disputeAction(async (request, operator) => {
          const id = idParam(request.params, 'id', messages.infractionNotFound);
          const input = api === 'accept' ? checked(acceptInfractionBody, { amountCents: optionalAmount(field(request.body, 'amount')) }) : undefined;
          await act(operator, 'disputes', { action: `POST /admin/v1/infractions/:id/${api}`, objectId: id, input }, async () => {
            const row =
              api === 'analysis'
                ? await infractions.analyze(id)
                : api === 'accept'
                  ? await infractions.accept(id, input?.amountCents)
                  : await infractions.reject(id);
            return { ...presentInfraction(row), accountId: row.accountId };
          });
          return notice;
        }),
      );
    disputeRoute('analise', 'analysis', messages.infractionUnderAnalysis);
    disputeRoute('aceitar', 'accept', messages.infractionAccepted);
    disputeRoute('rejeitar', 'reject', messages.infractionRejected);
  };
