import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import QRCode from 'qrcode';
import { DomainError, httpStatusOf, NotFoundError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { messages } from '../messages.js';
import { presentTransaction } from '../transactions/presenter.js';
import type { Services } from '../services.js';
import type { SessionUser } from '../users/service.js';
import { field, filterOf } from './forms.js';
import type { ListFilterForm } from './filters.js';
import { DASHBOARD_CSS, DASHBOARD_JS } from './assets.js';
import { chargePages } from './chargeRoutes.js';
import { disputePages } from './disputeRoutes.js';
import { moneyPages } from './moneyRoutes.js';
import { teamPages } from './teamRoutes.js';
import { assertMayDo, assertTotpEnrolled, mayDo } from '../users/roles.js';
import {
  ApiKeysPage,
  WebhooksPage,
  CodePage,
  ErrorPage,
  HomePage,
  InvitePage,
  SecurityPage,
  SignInPage,
  type PageContext,
  type SecurityData,
} from './views.js';

const SESSION_COOKIE = 'svc_session';

/** DESIGN.md §10: no inline script, nothing framed, forms only to ourselves. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

type Page = JSX.Element;

/** What every group of dashboard pages shares: rendering, the session, the CSRF check, form handling. */
export type DashboardKit = {
  checkCsrf: preHandlerHookHandler;
  send: (reply: FastifyReply, page: Page | Promise<Page>, status?: number) => Promise<FastifyReply>;
  contextOf: (reply: FastifyReply, user?: SessionUser) => PageContext;
  redirect: (reply: FastifyReply, to: string) => FastifyReply;
  /** Runs a form's action; a refusal of the rules shows `again(message)` with the API's status, and answers false. */
  attempt: (reply: FastifyReply, action: () => Promise<unknown>, again: (message: string) => Page | Promise<Page>) => Promise<boolean>;
  /**
   * A filtered list page: `render(filter)` with the query's filters; filters the list refuses show
   * the unfiltered page with the message and the refusal's status.
   */
  filteredPage: (request: FastifyRequest, reply: FastifyReply, render: (filter?: ListFilterForm, error?: string) => Promise<Page>) => Promise<unknown>;
  /** The request's signed-in user as the database has it now (after a change to the team), or null. */
  currentUser: (request: FastifyRequest) => Promise<SessionUser | null>;
  asUser: (
    handler: (request: FastifyRequest, reply: FastifyReply, user: SessionUser) => Promise<unknown>,
  ) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
};

/** The services the dashboard pages use. */
export type DashboardServices = Pick<
  Services,
  'users' | 'ledger' | 'transactions' | 'accounts' | 'webhooks' | 'charges' | 'config' | 'withdrawals' | 'recipients' | 'refunds' | 'infractions' | 'clock'
>;

/**
 * The merchant dashboard (DESIGN.md §10), server-rendered in Portuguese on the same services as
 * the API. Sessions are an HttpOnly, SameSite=Lax cookie (Secure on https) holding a random token
 * whose hash is the session row; every form carries a CSRF token.
 */
export const dashboardRoutes =
  (services: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { users, ledger, transactions, accounts, webhooks, config } = services;
    const secure = config.publicBaseUrl.startsWith('https://');
    await app.register(formbody);
    await app.register(cookie);
    await app.register(csrf, {
      cookieKey: 'svc_csrf',
      cookieOpts: { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure, signed: false },
      getToken: (request) => field(request.body, '_csrf'),
    });

    const checkCsrf: preHandlerHookHandler = (request, reply, done) => {
      app.csrfProtection(request, reply, done);
    };

    app.addHook('onSend', async (_request, reply) => {
      void reply.headers(SECURITY_HEADERS);
    });

    const send = async (reply: FastifyReply, page: Page | Promise<Page>, status = 200) =>
      reply
        .code(status)
        .type('text/html; charset=utf-8')
        .send(await page);
    const contextOf = (reply: FastifyReply, user?: SessionUser): PageContext => ({ csrfToken: reply.generateCsrf(), user });
    const tokenOf = (request: FastifyRequest) => request.cookies[SESSION_COOKIE] ?? '';
    const sessionOf = async (request: FastifyRequest) => {
      const token = tokenOf(request);
      return token ? users.session(token) : null;
    };
    const redirect = (reply: FastifyReply, to: string) => reply.code(303).header('location', to).send();
    const setSession = (reply: FastifyReply, token: string) =>
      reply.setCookie(SESSION_COOKIE, token, { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure, maxAge: 12 * 3600 });

    /** The signed-in user (full session), or a redirect to the sign-in page. */
    const signedIn = async (request: FastifyRequest, reply: FastifyReply): Promise<SessionUser | null> => {
      const session = await sessionOf(request);
      if (session?.stage === 'full') return session;
      await redirect(reply, '/dashboard/entrar');
      return null;
    };

    app.setErrorHandler(async (error, request, reply) => {
      const session = await sessionOf(request).catch(() => null);
      const context = contextOf(reply, session?.stage === 'full' ? session : undefined);
      const csrfRefused = typeof error === 'object' && error !== null && 'code' in error && String(error.code).startsWith('FST_CSRF');
      if (csrfRefused) return send(reply, <ErrorPage context={context} title="Formulário expirado" message={messages.formExpired} />, 403);
      if (error instanceof DomainError)
        return send(reply, <ErrorPage context={context} title="Não foi possível" message={error.message} />, httpStatusOf(error));
      request.log.error({ err: error }, 'dashboard page failed');
      return send(reply, <ErrorPage context={context} title="Erro" message={messages.internalError} />, 500);
    });
    app.setNotFoundHandler(async (request, reply) => {
      const session = await sessionOf(request);
      return send(
        reply,
        <ErrorPage context={contextOf(reply, session?.stage === 'full' ? session : undefined)} title="Não encontrada" message={messages.pageNotFound} />,
        404,
      );
    });

    /** Runs a form's action; a refusal of the rules shows the form again with the API's message and status. */
    const attempt = async (reply: FastifyReply, action: () => Promise<unknown>, again: (message: string) => Page | Promise<Page>): Promise<boolean> => {
      try {
        await action();
        return true;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        await send(reply, again(error.message), httpStatusOf(error));
        return false;
      }
    };

    /** A page for signed-in users only: the others go to the sign-in page. */
    const asUser =
      (handler: (request: FastifyRequest, reply: FastifyReply, user: SessionUser) => Promise<unknown>) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        const user = await signedIn(request, reply);
        return user ? handler(request, reply, user) : reply;
      };

    const currentUser = async (request: FastifyRequest) => {
      const session = await sessionOf(request);
      return session?.stage === 'full' ? session : null;
    };
    const filteredPage: DashboardKit['filteredPage'] = async (request, reply, render) => {
      let page: Page | undefined;
      const ok = await attempt(
        reply,
        async () => (page = await render(filterOf(request.query))),
        (error) => render(undefined, error),
      );
      return ok && page ? send(reply, page) : reply;
    };
    const kit: DashboardKit = { checkCsrf, send, contextOf, redirect, attempt, filteredPage, currentUser, asUser };
    await app.register(chargePages(kit, services));
    await app.register(moneyPages(kit, services));
    await app.register(disputePages(kit, services));
    await app.register(teamPages(kit, services));

    app.get('/assets/app.css', async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(DASHBOARD_CSS),
    );
    app.get('/assets/app.js', async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(DASHBOARD_JS),
    );

    app.get('/entrar', async (request, reply) => {
      if ((await sessionOf(request))?.stage === 'full') return redirect(reply, '/dashboard');
      const notice = Reflect.get(request.query ?? {}, 'senha') === 'definida' ? messages.passwordDefined : undefined;
      return send(reply, <SignInPage context={contextOf(reply)} notice={notice} />);
    });

    app.post('/entrar', { preHandler: checkCsrf }, async (request, reply) => {
      const email = field(request.body, 'email');
      let signed: { sessionToken: string; stage: string } | undefined;
      const ok = await attempt(
        reply,
        async () => (signed = await users.signIn(email, field(request.body, 'password'))),
        (error) => <SignInPage context={contextOf(reply)} error={error} email={email} />,
      );
      if (!ok || !signed) return reply;
      setSession(reply, signed.sessionToken);
      return redirect(reply, signed.stage === 'full' ? '/dashboard' : '/dashboard/entrar/codigo');
    });

    app.get('/entrar/codigo', async (request, reply) => {
      if ((await sessionOf(request))?.stage !== 'password') return redirect(reply, '/dashboard/entrar');
      return send(reply, <CodePage context={contextOf(reply)} />);
    });

    app.post('/entrar/codigo', { preHandler: checkCsrf }, async (request, reply) => {
      const ok = await attempt(
        reply,
        () => users.completeSignIn(tokenOf(request), field(request.body, 'code')),
        (error) => <CodePage context={contextOf(reply)} error={error} />,
      );
      return ok ? redirect(reply, '/dashboard') : reply;
    });

    app.get('/convite/:token', async (request, reply) => {
      const token = field(request.params, 'token');
      return send(reply, <InvitePage context={contextOf(reply)} token={token} />);
    });

    app.post('/convite/:token', { preHandler: checkCsrf }, async (request, reply) => {
      const token = field(request.params, 'token');
      const ok = await attempt(
        reply,
        () => users.acceptInvite(token, field(request.body, 'password')),
        (error) => <InvitePage context={contextOf(reply)} token={token} error={error} />,
      );
      return ok ? redirect(reply, '/dashboard/entrar?senha=definida') : reply;
    });

    app.post('/sair', { preHandler: checkCsrf }, async (request, reply) => {
      const token = tokenOf(request);
      if (token) await users.signOut(token);
      void reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
      return redirect(reply, '/dashboard/entrar');
    });

    app.get(
      '/',
      asUser(async (request, reply, user) => {
        const [balance, latest] = await Promise.all([ledger.balanceOf(user.accountId), transactions.list(user.accountId, { limit: 10 })]);
        return send(reply, <HomePage context={contextOf(reply, user)} data={{ balance, transactions: latest.map(presentTransaction) }} />);
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
        const keyId = field(request.params, 'keyId');
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'keys');
            if (!isId(keyId)) throw new NotFoundError(messages.apiKeyNotFound);
            await accounts.revokeApiKey(keyId, user.accountId);
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
        const endpointId = field(request.params, 'endpointId');
        if (!isId(endpointId)) throw new NotFoundError(messages.webhookEndpointNotFound);
        const endpoint = await webhooks.getEndpoint(user.accountId, endpointId);
        const rotated = await webhooks.rotateSecret(endpointId, undefined, user.accountId);
        return { secret: { url: endpoint.url, value: rotated.secret } };
      }),
    );

    app.post('/webhooks/:endpointId/excluir', { preHandler: checkCsrf }, async (request, reply) =>
      changeWebhooks(request, reply, async (user) => {
        const endpointId = field(request.params, 'endpointId');
        if (!isId(endpointId)) throw new NotFoundError(messages.webhookEndpointNotFound);
        await webhooks.deleteEndpoint(user.accountId, endpointId);
        return { notice: messages.webhookEndpointDeleted };
      }),
    );

    app.post('/webhooks/entregas/:deliveryId/reenviar', { preHandler: checkCsrf }, async (request, reply) =>
      changeWebhooks(request, reply, async (user) => {
        const deliveryId = field(request.params, 'deliveryId');
        if (!isId(deliveryId)) throw new NotFoundError(messages.webhookDeliveryNotFound);
        await webhooks.resend(deliveryId, user.accountId);
        return { notice: messages.webhookResendQueued };
      }),
    );
  };
