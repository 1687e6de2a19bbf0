import type { FastifyInstance, FastifyReply } from 'fastify';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import { presentCycle, presentRecurrence, type RecurrenceView } from '../recurrences/presenter.js';
import { allowsRecurrence, RECURRENCE } from '../recurrences/states.js';
import { assertMayDo, mayDo } from '../users/roles.js';
import type { SessionUser } from '../users/service.js';
import { checked, field, fieldsOf, idParam } from '../pages/forms.js';
import { parseBrl } from '../pix/money.js';
import { changeRecurrenceAmountBody } from '../recurrences/schemas.js';
import type { DashboardKit, DashboardServices } from './kit.js';
import { RecurrencePage, RecurrencesPage } from './recurrenceViews.js';

/** Rows of a page of the list: as Transações'. */
const PAGE_ROWS = 50;

/**
 * Recorrências (DESIGN.md §17, docs/recurrences.md): the account's Pix Automático recurrences,
 * newest first with the history pages' cursor (`?apos=`), and a recurrence's page with its cycles
 * and cancellation. Every role reads; cancelling and changing a variable recurrence's amount are for
 * the roles that create charges, through the API's `RecurrenceService.cancel` and `changeAmount`.
 * Recurrences are created through the API only.
 */
export const recurrencePages =
  (kit: DashboardKit, { recurrences, accounts, clock }: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asUser, send, contextOf, attempt, checkCsrf } = kit;

    app.get(
      '/recorrencias',
      asUser(async (request, reply, user) => {
        const after = field(request.query, 'apos').trim();
        let page: { rows: RecurrenceView[]; next: string | undefined } | undefined;
        const ok = await attempt(
          reply,
          async () => {
            // A cursor that is not one of the account's recurrences (malformed, unknown, another's): the API's message, 400.
            if (after !== '' && !isId(after)) throw new InvalidRequestError(messages.recurrenceStartingAfterInvalid);
            const listed = await recurrences.list(user.accountId, PAGE_ROWS, after === '' ? undefined : after);
            const rows = listed.recurrences.map(presentRecurrence);
            page = { rows, next: listed.hasMore ? rows.at(-1)?.id : undefined };
          },
          (error) => <RecurrencesPage context={contextOf(reply, user)} recurrences={undefined} after={after} next={undefined} error={error} />,
        );
        if (!ok || !page) return reply;
        return send(reply, <RecurrencesPage context={contextOf(reply, user)} recurrences={page.rows} after={after} next={page.next} />);
      }),
    );

    /** A recurrence id as the pages take it: a malformed one is not found (404), as the other detail pages' ids. */
    const recurrenceIdOf = (params: unknown) => idParam(params, 'id', messages.recurrenceNotFound);

    /** A recurrence's page; another account's is not found (404). */
    const recurrenceView = async (reply: FastifyReply, user: SessionUser, id: string, extra: { notice?: string; error?: string; amount?: string } = {}) => {
      const row = await recurrences.get(user.accountId, id);
      const cycles = await recurrences.cycles(user.accountId, id);
      // As the service decides: an open status, and not a request whose time has passed (it is expired, whether or not the worker moved it yet).
      const lapsed = allowsRecurrence(RECURRENCE.expire, row.status) && row.authorizationExpiresAt <= clock.now();
      return (
        <RecurrencePage
          context={contextOf(reply, user)}
          recurrence={presentRecurrence(row)}
          cycles={cycles.map(presentCycle)}
          cancellable={allowsRecurrence(RECURRENCE.cancel, row.status) && !lapsed}
          // As changeAmount decides: a variable recurrence, open, with a cycle still to charge.
          amountChangeable={row.maxAmountCents !== null && allowsRecurrence(RECURRENCE.cancel, row.status) && row.nextCycleDate !== null}
          mayCancel={mayDo(user.role, 'charges')}
          amount={extra.amount ?? ''}
          notice={extra.notice}
          error={extra.error}
        />
      );
    };

    app.get(
      '/recorrencias/:id',
      asUser(async (request, reply, user) => send(reply, recurrenceView(reply, user, recurrenceIdOf(request.params)))),
    );

    app.post(
      '/recorrencias/:id/cancelar',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const id = recurrenceIdOf(request.params);
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'charges');
            // The API's call (POST /v1/recurrences/{id}/cancel): its provider first, then the recurrence and its pending cycles, with their events.
            await recurrences.cancel(user.accountId, id, 'merchant');
          },
          (error) => recurrenceView(reply, user, id, { error }),
        );
        return ok ? send(reply, recurrenceView(reply, user, id, { notice: messages.recurrenceCancelledNotice })) : reply;
      }),
    );

    app.post(
      '/recorrencias/:id/valor',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const id = recurrenceIdOf(request.params);
        const form = fieldsOf(request.body, ['amount']);
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'charges');
            // The API's rules and messages (PATCH /v1/recurrences/{id}).
            const body = checked(changeRecurrenceAmountBody, { amountCents: parseBrl(form.amount) });
            await recurrences.changeAmount(await accounts.getAccount(user.accountId), id, body.amountCents);
          },
          (error) => recurrenceView(reply, user, id, { error, amount: form.amount }),
        );
        return ok ? send(reply, recurrenceView(reply, user, id, { notice: messages.recurrenceAmountChangedNotice })) : reply;
      }),
    );
  };
