import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import QRCode from 'qrcode';
import type { Config } from '../config.js';
import { DomainError, httpStatusOf, NotFoundError } from '../errors.js';
import { messages } from '../messages.js';
import type { SessionStage } from '../platform/schema.js';
import type { InviteState } from '../users/credentials.js';
import { PAGE_CSS, PAGE_JS } from './assets.js';
import type { Site, PageContext } from './components.js';
import type { ListFilterForm } from './filters.js';
import { field, filterOf } from './forms.js';
import { CodePage, ErrorPage, InvitePage, InviteRefusedPage, SignInPage } from './signInViews.js';

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

/** What a site's sessions say of who is signed in. */
export type SignedInPerson = { email: string; role: string; stage: SessionStage };

/** How a site signs people in: the dashboard's users or the back-office's operators (`Credentials`). */
export type SignInService<U extends SignedInPerson> = {
  session(sessionToken: string): Promise<U | null>;
  signIn(email: string, password: string): Promise<{ sessionToken: string; stage: SessionStage }>;
  completeSignIn(sessionToken: string, code: string): Promise<void>;
  enrolmentForSignIn(sessionToken: string): Promise<{ secret: string; uri: string } | null>;
  inviteState(token: string): Promise<InviteState>;
  acceptInvite(token: string, password: string): Promise<unknown>;
  signOut(sessionToken: string): Promise<void>;
};

/** What every group of a site's pages shares: rendering, the session, the CSRF check, form handling. */
export type PageKit<U extends SignedInPerson> = {
  checkCsrf: preHandlerHookHandler;
  send: (reply: FastifyReply, page: Page | Promise<Page>, status?: number) => Promise<FastifyReply>;
  contextOf: (reply: FastifyReply, user?: U) => PageContext;
  redirect: (reply: FastifyReply, to: string) => FastifyReply;
  /** Runs a form's action; a refusal of the rules shows `again(message)` with the API's status, and answers false. */
  attempt: (reply: FastifyReply, action: () => Promise<unknown>, again: (message: string) => Page | Promise<Page>) => Promise<boolean>;
  /**
   * A filtered list page: `render(filter)` with the query's filters; filters the list refuses show
   * the unfiltered page with the message and the refusal's status.
   */
  filteredPage: (request: FastifyRequest, reply: FastifyReply, render: (filter?: ListFilterForm, error?: string) => Promise<Page>) => Promise<unknown>;
  /** The request's signed-in person as the database has it now (after a change to the team), or null. */
  currentUser: (request: FastifyRequest) => Promise<U | null>;
  /** A page for signed-in people only: the others go to the sign-in page. */
  asUser: (
    handler: (request: FastifyRequest, reply: FastifyReply, user: U) => Promise<unknown>,
  ) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** The request's session token (its cookie), or ''. */
  tokenOf: (request: FastifyRequest) => string;
};

export type PageStackOptions<U extends SignedInPerson> = {
  site: Site['base'];
  /** The site's menu and name for a request (the back-office's shows its queues' lengths). */
  siteFor: (request: FastifyRequest) => Site;
  sessionCookie: string;
  csrfCookie: string;
  signIn: SignInService<U>;
  config: Pick<Config, 'publicBaseUrl'>;
};

/**
 * The page stack the dashboard and the back-office share (DESIGN.md §10, §11): form bodies,
 * cookies, a CSRF token on every form, the security headers, the error pages and the sign-in
 * pages (password, then the TOTP code or its enrolment; invitations; sign-out). Sessions are an
 * HttpOnly, SameSite=Lax cookie (Secure on https) holding a random token whose hash is the row.
 */
export async function pageStack<U extends SignedInPerson>(app: FastifyInstance, options: PageStackOptions<U>): Promise<PageKit<U>> {
  const { site: base, signIn: people, sessionCookie } = options;
  const secure = options.config.publicBaseUrl.startsWith('https://');
  await app.register(formbody);
  await app.register(cookie);
  await app.register(csrf, {
    cookieKey: options.csrfCookie,
    cookieOpts: { path: base, httpOnly: true, sameSite: 'lax', secure, signed: false },
    getToken: (request) => field(request.body, '_csrf'),
  });

  const checkCsrf: preHandlerHookHandler = (request, reply, done) => {
    app.csrfProtection(request, reply, done);
  };

  app.addHook('onSend', async (_request, reply) => {
    void reply.headers(SECURITY_HEADERS);
  });
  // Each site serves the one stylesheet and script under its own base (the pages link them there).
  app.get('/assets/app.css', async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PAGE_CSS));
  app.get('/assets/app.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PAGE_JS),
  );

  const send = async (reply: FastifyReply, page: Page | Promise<Page>, status = 200) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(await page);
  const contextOf = (reply: FastifyReply, user?: U): PageContext => ({
    csrfToken: reply.generateCsrf(),
    user,
    site: options.siteFor(reply.request),
    path: reply.request.url.split('?')[0],
  });
  const tokenOf = (request: FastifyRequest) => request.cookies[sessionCookie] ?? '';
  const sessionOf = async (request: FastifyRequest) => {
    const token = tokenOf(request);
    return token ? people.session(token) : null;
  };
  const currentUser = async (request: FastifyRequest) => {
    const session = await sessionOf(request);
    return session?.stage === 'full' ? session : null;
  };
  const redirect = (reply: FastifyReply, to: string) => reply.code(303).header('location', to).send();

  app.setErrorHandler(async (error, request, reply) => {
    const context = contextOf(reply, (await currentUser(request).catch(() => null)) ?? undefined);
    const csrfRefused = typeof error === 'object' && error !== null && 'code' in error && String(error.code).startsWith('FST_CSRF');
    if (csrfRefused) return send(reply, <ErrorPage context={context} title="Formulário expirado" message={messages.formExpired} />, 403);
    if (error instanceof DomainError) return send(reply, <ErrorPage context={context} title="Não foi possível" message={error.message} />, httpStatusOf(error));
    request.log.error({ err: error }, 'page failed');
    return send(reply, <ErrorPage context={context} title="Erro" message={messages.internalError} />, 500);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const context = contextOf(reply, (await currentUser(request)) ?? undefined);
    return send(reply, <ErrorPage context={context} title="Não encontrada" message={messages.pageNotFound} />, 404);
  });

  const attempt: PageKit<U>['attempt'] = async (reply, action, again) => {
    try {
      await action();
      return true;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await send(reply, again(error.message), httpStatusOf(error));
      return false;
    }
  };

  const asUser: PageKit<U>['asUser'] = (handler) => async (request, reply) => {
    const user = await currentUser(request);
    if (user) return handler(request, reply, user);
    return redirect(reply, `${base}/entrar`);
  };

  const filteredPage: PageKit<U>['filteredPage'] = async (request, reply, render) => {
    let page: Page | undefined;
    const ok = await attempt(
      reply,
      async () => (page = await render(filterOf(request.query))),
      (error) => render(undefined, error),
    );
    return ok && page ? send(reply, page) : reply;
  };

  app.get('/entrar', async (request, reply) => {
    if (await currentUser(request)) return redirect(reply, base);
    const notice = Reflect.get(request.query ?? {}, 'senha') === 'definida' ? messages.passwordDefined : undefined;
    return send(reply, <SignInPage context={contextOf(reply)} notice={notice} />);
  });

  app.post('/entrar', { preHandler: checkCsrf }, async (request, reply) => {
    const email = field(request.body, 'email');
    let signed: { sessionToken: string; stage: string } | undefined;
    const ok = await attempt(
      reply,
      async () => (signed = await people.signIn(email, field(request.body, 'password'))),
      (error) => <SignInPage context={contextOf(reply)} error={error} email={email} />,
    );
    if (!ok || !signed) return reply;
    void reply.setCookie(sessionCookie, signed.sessionToken, { path: base, httpOnly: true, sameSite: 'lax', secure, maxAge: 12 * 3600 });
    return redirect(reply, signed.stage === 'full' ? base : `${base}/entrar/codigo`);
  });

  /** The code page; the enrolment's QR when TOTP is required and not enrolled yet. */
  const codePage = async (request: FastifyRequest, reply: FastifyReply, error?: string) => {
    const enrolment = await people.enrolmentForSignIn(tokenOf(request));
    const shown = enrolment ? { secret: enrolment.secret, qrDataUrl: await QRCode.toDataURL(enrolment.uri, { width: 200, margin: 2 }) } : undefined;
    return <CodePage context={contextOf(reply)} error={error} enrolment={shown} />;
  };

  app.get('/entrar/codigo', async (request, reply) => {
    if ((await sessionOf(request))?.stage !== 'password') return redirect(reply, `${base}/entrar`);
    return send(reply, codePage(request, reply));
  });

  app.post('/entrar/codigo', { preHandler: checkCsrf }, async (request, reply) => {
    const ok = await attempt(
      reply,
      () => people.completeSignIn(tokenOf(request), field(request.body, 'code')),
      (error) => codePage(request, reply, error),
    );
    return ok ? redirect(reply, base) : reply;
  });

  /**
   * An invitation link (also how a forgotten password is replaced: the person is removed and
   * invited again) is judged before any password is typed: an unknown token answers 404, a used or
   * expired one (or one of a removed person) 410, with the message and no form.
   */
  const refuseInvite = (reply: FastifyReply, state: Exclude<InviteState, 'usable'>) =>
    send(reply, <InviteRefusedPage context={contextOf(reply)} />, state === 'unknown' ? 404 : 410);

  app.get('/convite/:token', async (request, reply) => {
    const token = field(request.params, 'token');
    const state = await people.inviteState(token);
    if (state !== 'usable') return refuseInvite(reply, state);
    return send(reply, <InvitePage context={contextOf(reply)} token={token} />);
  });

  app.post('/convite/:token', { preHandler: checkCsrf }, async (request, reply) => {
    const token = field(request.params, 'token');
    const state = await people.inviteState(token);
    if (state !== 'usable') return refuseInvite(reply, state);
    try {
      await people.acceptInvite(token, field(request.body, 'password'));
    } catch (error) {
      // Used by another request meanwhile: the invitation is what decides, as for the link.
      if (error instanceof NotFoundError) return refuseInvite(reply, (await people.inviteState(token)) === 'unknown' ? 'unknown' : 'spent');
      if (!(error instanceof DomainError)) throw error;
      return send(reply, <InvitePage context={contextOf(reply)} token={token} error={error.message} />, httpStatusOf(error));
    }
    return redirect(reply, `${base}/entrar?senha=definida`);
  });

  app.post('/sair', { preHandler: checkCsrf }, async (request, reply) => {
    const token = tokenOf(request);
    if (token) await people.signOut(token);
    void reply.clearCookie(sessionCookie, { path: base });
    return redirect(reply, `${base}/entrar`);
  });

  return { checkCsrf, send, contextOf, redirect, attempt, filteredPage, currentUser, asUser, tokenOf };
}
