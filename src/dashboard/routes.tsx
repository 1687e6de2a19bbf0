import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import QRCode from 'qrcode';
import { DomainError, httpStatusOf, InvalidRequestError, NotFoundError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { parseBrl } from '../pix/money.js';
import { createChargeBody } from '../charges/schemas.js';
import { presentTransaction } from '../transactions/presenter.js';
import { messages } from '../messages.js';
import type { Services } from '../services.js';
import type { SessionUser } from '../users/service.js';
import { DASHBOARD_CSS } from './styles.js';
import { assertMayDo, assertTotpEnrolled, mayDo } from '../users/roles.js';
import {
  ApiKeysPage,
  ChargePage,
  ChargesPage,
  WebhooksPage,
  type ChargeForm,
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

/** A form field as text ('' when absent or not text). */
function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value: unknown = Reflect.get(body, name);
  return typeof value === 'string' ? value : '';
}

type Page = JSX.Element;

/**
 * The merchant dashboard (DESIGN.md §10), server-rendered in Portuguese on the same services as
 * the API. Sessions are an HttpOnly, SameSite=Lax cookie (Secure on https) holding a random token
 * whose hash is the session row; every form carries a CSRF token.
 */
export const dashboardRoutes =
  (services: Pick<Services, 'users' | 'ledger' | 'transactions' | 'accounts' | 'webhooks' | 'charges' | 'config'>) =>
  async (app: FastifyInstance): Promise<void> => {
    const { users, ledger, transactions, accounts, webhooks, charges, config } = services;
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

    app.get('/assets/app.css', async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(DASHBOARD_CSS),
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

    app.get('/', async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const [balance, latest] = await Promise.all([ledger.balanceOf(user.accountId), transactions.list(user.accountId, { limit: 10 })]);
      const rows = latest.map((row) => ({
        transactionId: row.id,
        type: row.type,
        amountCents: row.amountCents,
        status: row.status,
        createdAt: row.createdAt.getTime(),
      }));
      return send(reply, <HomePage context={contextOf(reply, user)} data={{ balance, transactions: rows }} />);
    });

    const securityData = async (user: SessionUser): Promise<SecurityData> => {
      const pending = user.totpEnrolled ? null : await users.pendingTotpEnrolment(user.userId);
      return {
        totpEnrolled: user.totpEnrolled,
        enrolment: pending ? { secret: pending.secret, qrDataUrl: await QRCode.toDataURL(pending.uri, { width: 200, margin: 2 }) } : undefined,
      };
    };

    app.get('/seguranca', async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      return send(reply, <SecurityPage context={contextOf(reply, user)} data={await securityData(user)} />);
    });

    app.post('/seguranca/totp/iniciar', { preHandler: checkCsrf }, async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      await users.beginTotpEnrolment(user.userId);
      return redirect(reply, '/dashboard/seguranca');
    });

    app.post('/seguranca/totp/confirmar', { preHandler: checkCsrf }, async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const data = await securityData(user);
      const ok = await attempt(
        reply,
        () => users.confirmTotpEnrolment(user.userId, field(request.body, 'code')),
        (error) => <SecurityPage context={contextOf(reply, user)} data={data} error={error} />,
      );
      if (!ok) return reply;
      return send(reply, <SecurityPage context={contextOf(reply, user)} data={{ totpEnrolled: true }} notice={messages.totpEnrolled} />);
    });

    app.post('/seguranca/senha', { preHandler: checkCsrf }, async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const data = await securityData(user);
      const ok = await attempt(
        reply,
        () => users.changePassword(user.userId, field(request.body, 'current'), field(request.body, 'next'), tokenOf(request)),
        (error) => <SecurityPage context={contextOf(reply, user)} data={data} error={error} />,
      );
      if (!ok) return reply;
      return send(reply, <SecurityPage context={contextOf(reply, user)} data={data} notice={messages.passwordChanged} />);
    });

    const keysPage = async (reply: FastifyReply, user: SessionUser, extra: { created?: string; error?: string } = {}, status = 200) => {
      const keys = (await accounts.listApiKeys(user.accountId)).map((key) => ({
        keyId: key.id,
        prefix: key.prefix,
        createdAt: key.createdAt,
        revokedAt: key.revokedAt,
      }));
      const data = { keys, mayManage: mayDo(user.role, 'keys'), totpEnrolled: user.totpEnrolled, created: extra.created };
      return send(reply, <ApiKeysPage context={contextOf(reply, user)} data={data} error={extra.error} />, status);
    };

    app.get('/chaves', async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      return keysPage(reply, user);
    });

    app.post('/chaves', { preHandler: checkCsrf }, async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
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
    });

    app.post('/chaves/:keyId/revogar', { preHandler: checkCsrf }, async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
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
    });

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

    app.get('/webhooks', async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      return send(reply, webhooksView(reply, user));
    });

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

    /** The Cobranças page: the latest charges, and the form (as typed, after a refusal). */
    const chargesView = async (reply: FastifyReply, user: SessionUser, extra: { form?: ChargeForm; error?: string } = {}) => {
      const rows = await transactions.list(user.accountId, { type: 'pix_in', limit: 50 });
      return (
        <ChargesPage
          context={contextOf(reply, user)}
          charges={rows.map(presentTransaction)}
          mayCreate={mayDo(user.role, 'charges')}
          form={extra.form}
          error={extra.error}
        />
      );
    };

    app.get('/cobrancas', async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      return send(reply, chargesView(reply, user));
    });

    app.post('/cobrancas', { preHandler: checkCsrf }, async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const form: ChargeForm = {
        amount: field(request.body, 'amount'),
        name: field(request.body, 'name'),
        email: field(request.body, 'email'),
        phone: field(request.body, 'phone'),
        document: field(request.body, 'document'),
        documentType: field(request.body, 'documentType'),
      };
      let transactionId = '';
      const ok = await attempt(
        reply,
        async () => {
          assertMayDo(user, 'charges');
          // The API's own schema and rules: the same checks, in the same order, with the same messages.
          const parsed = createChargeBody.safeParse({
            amountCents: parseBrl(form.amount),
            customer: {
              name: form.name,
              email: form.email.trim(),
              phone: form.phone.replace(/\D/g, ''),
              document: { number: form.document, type: form.documentType },
            },
          });
          if (!parsed.success) throw new InvalidRequestError(parsed.error.issues[0]?.message ?? messages.bodyInvalid);
          transactionId = (await charges.createCharge(await accounts.getAccount(user.accountId), parsed.data)).charge.transactionId;
        },
        (error) => chargesView(reply, user, { form, error }),
      );
      if (!ok) return reply;
      return redirect(reply, `/dashboard/cobrancas/${transactionId}`);
    });

    /** One of the account's charges; anything else (a withdrawal, another account's, a malformed id) is not found. */
    const chargeOf = async (user: SessionUser, id: string) => {
      if (!isId(id)) throw new NotFoundError(messages.transactionNotFound);
      const row = await transactions.get(user.accountId, id);
      if (row.type !== 'pix_in') throw new NotFoundError(messages.transactionNotFound);
      return row;
    };

    app.get('/cobrancas/:id', async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const charge = await chargeOf(user, field(request.params, 'id'));
      return send(reply, <ChargePage context={contextOf(reply, user)} charge={presentTransaction(charge)} />);
    });

    app.get('/cobrancas/:id/qrcode.png', async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const charge = await chargeOf(user, field(request.params, 'id'));
      const image = await charges.qrImage(user.accountId, charge.id, 'png', 256);
      return reply.type(image.contentType).header('cache-control', 'private, max-age=3600').send(image.body);
    });
  };
