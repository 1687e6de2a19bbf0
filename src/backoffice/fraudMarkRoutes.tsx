import type { FastifyInstance, FastifyReply } from 'fastify';
import { fraudMarkBody } from '../fraudmarks/schemas.js';
import { messages } from '../messages.js';
import { operatorMayDo } from '../operators/roles.js';
import { operatorActor, type OperatorSession } from '../operators/service.js';
import { checked, field, fieldsOf, idParam } from '../pages/forms.js';
import { isId } from '../platform/ids.js';
import { FraudMarksPage, type FraudMarksData } from './fraudMarkViews.js';
import { PAGE_ROWS, type AuditedAction, type BackofficeKit, type BackofficeServices } from './kit.js';

type Outcome = { error?: string | undefined; notice?: string | undefined; form?: FraudMarksData['form'] };

/**
 * Marcações de fraude (DESIGN.md §19; docs/fraud-marks.md): the operators' list, as the operator
 * API's `/admin/v1/fraud-marks`; compliance and admin change it, every role reads; each change is
 * audited as its API route. Documents are shown masked; none reaches an address.
 */
export const fraudMarkPages =
  (kit: BackofficeKit, { fraudMarks }: BackofficeServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asOperator, send, contextOf, attempt, checkCsrf, act } = kit;

    const marksView = async (reply: FastifyReply, operator: OperatorSession, before: string | undefined, outcome: Outcome = {}) => {
      const { marks, hasMore } = await fraudMarks.list({ limit: PAGE_ROWS, before });
      const last = marks.at(-1);
      const data: FraudMarksData = {
        marks,
        next: hasMore && last ? `/backoffice/marcacoes?antes=${last.id}` : undefined,
        mayChange: operatorMayDo(operator.role, 'fraudMarks'),
        form: outcome.form,
      };
      return <FraudMarksPage context={contextOf(reply, operator)} data={data} error={outcome.error} notice={outcome.notice} />;
    };

    app.get(
      '/marcacoes',
      asOperator(async (request, reply, operator) => {
        const before = field(request.query, 'antes').trim();
        const valid = before === '' || isId(before);
        const page = marksView(reply, operator, valid && before !== '' ? before : undefined, valid ? {} : { error: messages.fraudMarkCursorInvalid });
        return send(reply, page, valid ? 200 : 400);
      }),
    );

    app.post(
      '/marcacoes',
      { preHandler: checkCsrf },
      asOperator(async (request, reply, operator) => {
        const form = fieldsOf(request.body, ['kind', 'value', 'reason']);
        const ok = await attempt(
          reply,
          async () => {
            const input = checked(fraudMarkBody, form);
            await act(operator, 'fraudMarks', { action: 'POST /admin/v1/fraud-marks', input }, () => fraudMarks.add(input, operatorActor(operator.operatorId)));
          },
          (error) => marksView(reply, operator, undefined, { error, form }),
        );
        return ok ? send(reply, marksView(reply, operator, undefined, { notice: messages.fraudMarkAdded })) : reply;
      }),
    );

    app.post(
      '/marcacoes/:id/remover',
      { preHandler: checkCsrf },
      asOperator(async (request, reply, operator) => {
        const ok = await attempt(
          reply,
          async () => {
            const id = idParam(request.params, 'id', messages.fraudMarkNotFound);
            // The removed mark is the entry's `before`, as the API's DELETE records it (act reads it once the action ran).
            const audited: AuditedAction = { action: 'DELETE /admin/v1/fraud-marks/:id', objectId: id };
            await act(operator, 'fraudMarks', audited, async () => {
              audited.before = await fraudMarks.remove(id, operatorActor(operator.operatorId));
              return undefined;
            });
          },
          (error) => marksView(reply, operator, undefined, { error }),
        );
        return ok ? send(reply, marksView(reply, operator, undefined, { notice: messages.fraudMarkRemoved })) : reply;
      }),
    );
  };
