import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { messages } from '../messages.js';
import { assertMayDo, assertTotpEnrolled, mayDo } from '../users/roles.js';
import { inviteUserBody } from '../users/schemas.js';
import type { Invitation, SessionUser } from '../users/service.js';
import { checked, field, idParam } from '../pages/forms.js';
import type { DashboardKit, DashboardServices } from './kit.js';
import { TeamPage, type InviteForm } from './teamViews.js';

/** Equipe (DESIGN.md §10): the owner invites, changes roles and removes members; everyone sees the team. */
export const teamPages =
  (kit: DashboardKit, { users }: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asUser, send, contextOf, attempt, checkCsrf, currentUser, redirect } = kit;

    const teamView = async (
      reply: FastifyReply,
      user: SessionUser,
      extra: { error?: string; notice?: string; form?: InviteForm; invited?: { email: string; invitation: Invitation } } = {},
    ) => (
      <TeamPage
        context={contextOf(reply, user)}
        members={await users.listMembers(user.accountId)}
        me={user.userId}
        mayManage={mayDo(user.role, 'team')}
        totpEnrolled={user.totpEnrolled}
        form={extra.form}
        invited={extra.invited}
        error={extra.error}
        notice={extra.notice}
      />
    );

    /**
     * Team changes: the owner, with TOTP enrolled (a new owner can move money); a refusal shows the
     * page with the message. The page after a change is the user's as it is now: an owner who
     * demoted itself sees a member's page, one who removed itself the sign-in page.
     */
    const changeTeam = async (
      request: FastifyRequest,
      reply: FastifyReply,
      user: SessionUser,
      change: () => Promise<{ notice?: string; invited?: { email: string; invitation: Invitation } }>,
      form?: InviteForm,
    ) => {
      let outcome: { notice?: string; invited?: { email: string; invitation: Invitation } } = {};
      const ok = await attempt(
        reply,
        async () => {
          assertMayDo(user, 'team');
          assertTotpEnrolled(user);
          outcome = await change();
        },
        (error) => teamView(reply, user, { error, form }),
      );
      if (!ok) return reply;
      const now = await currentUser(request);
      return now ? send(reply, teamView(reply, now, outcome)) : redirect(reply, '/dashboard/entrar');
    };

    app.get(
      '/equipe',
      asUser(async (_request, reply, user) => send(reply, teamView(reply, user))),
    );

    app.post(
      '/equipe',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const form: InviteForm = { email: field(request.body, 'email').trim(), role: field(request.body, 'role') };
        return changeTeam(
          request,
          reply,
          user,
          async () => {
            const invitation = await users.invite(user.accountId, checked(inviteUserBody, form));
            if (invitation.emailed === 'failed')
              request.log.warn({ userId: invitation.userId, err: invitation.emailError }, 'invitation e-mail failed; the link is on the page');
            return { invited: { email: form.email, invitation } };
          },
          form,
        );
      }),
    );

    app.post(
      '/equipe/:userId/papel',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) =>
        changeTeam(request, reply, user, async () => {
          const { role } = checked(inviteUserBody.pick({ role: true }), { role: field(request.body, 'role') });
          await users.changeRole(user.accountId, idParam(request.params, 'userId', messages.userNotFound), role);
          return { notice: messages.memberRoleChanged };
        }),
      ),
    );

    app.post(
      '/equipe/:userId/remover',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) =>
        changeTeam(request, reply, user, async () => {
          await users.removeMember(user.accountId, idParam(request.params, 'userId', messages.userNotFound));
          return { notice: messages.memberRemoved };
        }),
      ),
    );
  };
