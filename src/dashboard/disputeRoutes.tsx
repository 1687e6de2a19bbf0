import type { FastifyInstance, FastifyReply } from 'fastify';
import { defenseBody } from '../infractions/schemas.js';
import { presentInfraction } from '../infractions/presenter.js';
import { messages } from '../messages.js';
import { assertMayDo, mayDo } from '../users/roles.js';
import type { SessionUser } from '../users/service.js';
import { DisputesPage } from './disputeViews.js';
import { checked, field, idParam } from '../pages/forms.js';
import type { DashboardKit, DashboardServices } from './kit.js';

/** Disputas (DESIGN.md §9–§10): the account's MED cases, and a defense while a case is open. */
export const disputePages =
  (kit: DashboardKit, { infractions, clock }: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asUser, send, contextOf, attempt, checkCsrf } = kit;

    const disputesView = async (
      reply: FastifyReply,
      user: SessionUser,
      extra: { error?: string; notice?: string; defense?: { infractionId: string; text: string } } = {},
    ) => {
      const { rows: cases } = await infractions.list(user.accountId, { limit: 50 });
      return (
        <DisputesPage
          context={contextOf(reply, user)}
          cases={cases.map(presentInfraction)}
          now={clock.now().getTime()}
          mayDefend={mayDo(user.role, 'disputes')}
          defense={extra.defense}
          error={extra.error}
          notice={extra.notice}
        />
      );
    };

    app.get(
      '/disputas',
      asUser(async (_request, reply, user) => send(reply, disputesView(reply, user))),
    );

    app.post(
      '/disputas/:id/defesa',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const infractionId = field(request.params, 'id');
        const text = field(request.body, 'text');
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'disputes');
            await infractions.defend(user.accountId, idParam(request.params, 'id', messages.infractionNotFound), checked(defenseBody, { text }).text);
          },
          (error) => disputesView(reply, user, { error, defense: { infractionId, text } }),
        );
        return ok ? send(reply, disputesView(reply, user, { notice: messages.defenseSent })) : reply;
      }),
    );
  };
