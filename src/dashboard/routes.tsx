import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { messages } from '../messages.js';
import { presentTransaction } from '../transactions/presenter.js';
import type { SessionUser } from '../users/service.js';
import { field, idParam } from '../pages/forms.js';
import type { DashboardKit, DashboardServices } from './kit.js';
import { DeadlineBanner } from './deadlineBanner.js';
import { presentInfraction } from '../infractions/presenter.js';
import { chargePages } from './chargeRoutes.js';
import { DASHBOARD_SITE } from './site.js';
import { disputePages } from './disputeRoutes.js';
import { historyPages } from './historyRoutes.js';
import { moneyPages } from './moneyRoutes.js';
import { pageStack } from '../pages/siteRoutes.js';
import { recurrencePages } from './recurrenceRoutes.js';
import { staticQrPages } from './staticQrRoutes.js';
import { teamPages } from './teamRoutes.js';
import { assertMayDo, assertTotpEnrolled, mayDo } from '../users/roles.js';
import { ApiKeysPage, WebhooksPage, HomePage, SecurityPage, type SecurityData } from './views.js';
import { ErrorPage } from '../pages/signInViews.js';

/** How many disputes and held charges Início lists by name; the rest are counted, with a link to their page. */
const ATTENTION_ROWS = 5;

/**
 * The merchant dashboard (DESIGN.md §10), server-rendered in Portuguese on the same services as
 * the API. Sessions are an HttpOnly, SameSite=Lax cookie (Secure on https) holding a random token
 * whose hash is the session row; every form carries a CSRF token.
 */
export const dashboardRoutes =
  (services: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { users, ledger, transactions, accounts, webhooks, config, deadlineReminders, clock, holds } = services;
    // The MED deadline banner of the request's account (DeadlineBanner), read once the user is known.
    const banners = new WeakMap<FastifyRequest, JSX.Element>();
    const stack = await pageStack(app, {
      site: '/dashboard',
      siteFor: (request) => ({ ...DASHBOARD_SITE, banner: banners.get(request) }),
      sessionCookie: 'svc_session',
      csrfCookie: 'svc_csrf',
      signIn: users,
      config,
    });
    const kit: DashboardKit = {
      ...stack,
      asUser: (handler) =>
        stack.asUser(async (request, reply, user) => {
          const near = await deadlineReminders.nearDeadlines(user.accountId);
          if (near) banners.set(request, <DeadlineBanner nearest={presentInfraction(near.nearest)} total={near.total} now={clock.now().getTime()} />);
          return handler(request, reply, user);
        }),
    };
    const { checkCsrf, send, contextOf, redirect, attempt, asUser, tokenOf } = kit;
    /** The signed-in user (full session), or a redirect to the sign-in page. */
    const signedIn = async (request: FastifyRequest, reply: FastifyReply): Promise<SessionUser | null> => {
      const user = await kit.currentUser(request);
      if (!user) await redirect(reply, '/dashboard/entrar');
      return user;
    };
    await app.register(chargePages(kit, services));
    await app.register(staticQrPages(kit, services));
    await app.register(recurrencePages(kit, services));
    await app.register(moneyPages(kit, services));
    await app.register(disputePages(kit, services));
    await app.register(teamPages(kit, services));
    await app.register(historyPages(kit, services));

    app.get(
      '/',
      asUser(async (request, reply, user) => {
        const [balance, heldCents, latest, days, disputes, held, failing] = await Promise.all([
          ledger.balanceOf(user.accountId),
          ledger.heldOf(user.accountId),
          transactions.page(user.accountId, { limit: 10 }),
          ledger.dailyMoney(user.accountId, 30),
          deadlineReminders.nearDeadlineCases(user.accountId, ATTENTION_ROWS),
          holds.heldCharges(user.accountId, ATTENTION_ROWS),
          webhooks.failingEndpoints(user.accountId),
        ]);
        const attention = {
          disputes: { rows: disputes.rows.map(presentInfraction), total: disputes.total },
          held: { rows: held.rows.map((row) => ({ ...row, heldUntil: row.heldUntil.getTime() })), total: held.total },
          webhooks: failing.map((row) => ({ ...row, lastFailedAt: row.lastFailedAt.getTime() })),
        };
        return send(
          reply,
          <HomePage context={contextOf(reply, user)} data={{ balance, heldCents, transactions: latest.rows.map(presentTransaction), days, attention }} />,
        );
      }),
    );

    const securityData = async (user: SessionUser, sessionToken: string): Promise<SecurityData> => {
      const pending = user.totpEnrolled ? null : await users.pendingTotpEnrolment(user.userId);
      return {
        totpEnrolled: user.totpEnrolled,
        sessions: await users.listSessions(user.userId, sessionToken),
        enrolment: pending ? { secret: pending.secret, qrDataUrl: await QRCode.toDataURL(pending.uri, { width: 200, margin: 2 }) } : undefined,
      };
    };

    app.get(
      '/seguranca',
      asUser(async (request, reply, user) => {
        return send(reply, <SecurityPage context={contextOf(reply, user)} data={await securityData(user, tokenOf(request))} />);
      }),
    );

    app.post(
      '/seguranca/totp/iniciar',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        await users.beginTotpEnrolment(user.userId);
        return redirect(reply, '/dashboard/seguranca');
      }),
    );

    app.post(
      '/seguranca/totp/confirmar',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const data = await securityData(user, tokenOf(request));
        const ok = await attempt(
          reply,
          () => users.confirmTotpEnrolment(user.userId, field(request.body, 'code')),
          (error) => <SecurityPage context={contextOf(reply, user)} data={data} error={error} />,
        );
        if (!ok) return reply;
        return send(
          reply,
          <SecurityPage context={contextOf(reply, user)} data={{ ...data, totpEnrolled: true, enrolment: undefined }} notice={messages.totpEnrolled} />,
        );
      }),
    );

    /** The Segurança page as it stands after an action. */
    const securityView = async (request: FastifyRequest, reply: FastifyReply, user: SessionUser, extra: { error?: string; notice?: string } = {}) => (
      <SecurityPage context={contextOf(reply, user)} data={await securityData(user, tokenOf(request))} error={extra.error} notice={extra.notice} />
    );

    app.post(
      '/seguranca/senha',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const ok = await attempt(
          reply,
          () => users.changePassword(user.userId, field(request.body, 'current'), field(request.body, 'next'), tokenOf(request)),
          (error) => securityView(request, reply, user, { error }),
        );
        return ok ? send(reply, securityView(request, reply, user, { notice: messages.passwordChanged })) : reply;
      }),
    );

    app.post(
      '/seguranca/sessoes/encerrar',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        await users.endOtherSessions(user.userId, tokenOf(request));
        return send(reply, securityView(request, reply, user, { notice: messages.otherSessionsEnded }));
      }),
    );

    const keysPage = async (reply: FastifyReply, user: SessionUser, extra: { created?: string; error?: string } = {}, status = 200) => {
      const keys = (await accounts.listApiKeys(user.accountId)).map((key) => ({
        keyId: key.id,
        prefix: key.prefix,
        createdAt: key.createdAt,
        revokedAt: key.revokedAt,
        lastUsedAt: key.lastUsedAt,
      }));
      const data = { keys, mayManage: mayDo(user.role, 'keys'), totpEnrolled: user.totpEnrolled, created: extra.created };
      return send(reply, <ApiKeysPage context={contextOf(reply, user)} data={data} error={extra.error} />, status);
    };

    app.get(
      '/chaves',
      asUser(async (request, reply, user) => {
        return keysPage(reply, user);
      }),
    );

    app.post(
      '/chaves',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        let created = '';
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'keys');
            assertTotpEnrolled(user);
            created = (await accounts.createApiKey(user.accountId)).apiKey;
          },
          (error) => <ErrorPage context={contextOf(reply, user)} title="Chaves de API" message={error} />,
        );
        return ok ? keysPage(reply, user, { created }) : reply;
      }),
    );

    app.post(
      '/chaves/:keyId/revogar',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'keys');
            await accounts.revokeApiKey(idParam(request.params, 'keyId', messages.apiKeyNotFound), user.accountId);
          },
          (error) => <ErrorPage context={contextOf(reply, user)} title="Chaves de API" message={error} />,
        );
        return ok ? redirect(reply, '/dashboard/chaves') : reply;
      }),
    );

    /** The Webhooks page as it stands, with what the last action left to show. */
    const webhooksView = async (
      reply: FastifyReply,
      user: SessionUser,
      extra: { secret?: { url: string; value: string }; error?: string; notice?: string } = {},
    ) => {
      const [{ endpoints }, { attempts }] = await Promise.all([webhooks.listEndpoints(user.accountId), webhooks.listAttempts(user.accountId, { limit: 50 })]);
      const data = { endpoints, attempts, mayManage: mayDo(user.role, 'webhooks'), totpEnrolled: user.totpEnrolled, secret: extra.secret };
      return <WebhooksPage context={contextOf(reply, user)} data={data} error={extra.error} notice={extra.notice} />;
    };
    /** Webhook changes: owner or developer, with TOTP; a refusal shows the page again with the API's message. */
    const changeWebhooks = async (
      request: FastifyRequest,
      reply: FastifyReply,
      change: (user: SessionUser) => Promise<{ secret?: { url: string; value: string }; notice?: string }>,
    ) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      let outcome: { secret?: { url: string; value: string }; notice?: string } = {};
      const ok = await attempt(
        reply,
        async () => {
          assertMayDo(user, 'webhooks');
          assertTotpEnrolled(user);
          outcome = await change(user);
        },
        (error) => webhooksView(reply, user, { error }),
      );
      return ok ? send(reply, webhooksView(reply, user, outcome)) : reply;
    };

    app.get(
      '/webhooks',
      asUser(async (request, reply, user) => {
        return send(reply, webhooksView(reply, user));
      }),
    );

    app.post('/webhooks', { preHandler: checkCsrf }, async (request, reply) =>
      changeWebhooks(request, reply, async (user) => {
        const events = field(request.body, 'events')
          .split(',')
          .map((entry) => entry.trim())
          .filter(Boolean);
        const created = await webhooks.registerEndpoint(user.accountId, { url: field(request.body, 'url').trim(), events });
        return { secret: { url: created.url, value: created.secret } };
      }),
    );

    app.post('/webhooks/:endpointId/rotacionar', { preHandler: checkCsrf }, async (request, reply) =>
      changeWebhooks(request, reply, async (user) => {
        const endpointId = idParam(request.params, 'endpointId', messages.webhookEndpointNotFound);
        const endpoint = await webhooks.getEndpoint(user.accountId, endpointId);
        const rotated = await webhooks.rotateSecret(endpointId, undefined, user.accountId);
        return { secret: { url: endpoint.url, value: rotated.secret } };
      }),
    );

    app.post('/webhooks/:endpointId/excluir', { preHandler: checkCsrf }, async (request, reply) =>
      changeWebhooks(request, reply, async (user) => {
        await webhooks.deleteEndpoint(user.accountId, idParam(request.params, 'endpointId', messages.webhookEndpointNotFound));
        return { notice: messages.webhookEndpointDeleted };
      }),
    );

    app.post('/webhooks/entregas/:deliveryId/reenviar', { preHandler: checkCsrf }, async (request, reply) =>
      changeWebhooks(request, reply, async (user) => {
        await webhooks.resend(idParam(request.params, 'deliveryId', messages.webhookDeliveryNotFound), user.accountId);
        return { notice: messages.webhookResendQueued };
      }),
    );
  };
