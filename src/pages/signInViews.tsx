import { messages } from '../messages.js';
import { Alert, CodeForm, CsrfField, Layout, Notice, TotpEnrolment, type PageContext } from './components.js';

// The pages of signing in and of the page stack itself, the same on both sites.

export function SignInPage(props: { context: PageContext; error?: string | undefined; notice?: string | undefined; email?: string | undefined }) {
  return (
    <Layout title="Entrar" context={props.context}>
      <h1>Entrar</h1>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      <form class="stack" method="post" action={`${props.context.site.base}/entrar`}>
        <CsrfField token={props.context.csrfToken} />
        <label>
          E-mail
          <input type="email" name="email" autocomplete="username" required value={props.email ?? ''} />
        </label>
        <label>
          Senha
          <input type="password" name="password" autocomplete="current-password" required />
        </label>
        <button type="submit">Entrar</button>
      </form>
    </Layout>
  );
}

/**
 * The second step of signing in: the code; or, where TOTP is required and not enrolled yet (an
 * operator's first sign-in), the enrolment, whose first code completes the sign-in.
 */
export function CodePage(props: { context: PageContext; error?: string | undefined; enrolment?: { secret: string; qrDataUrl: string } | undefined }) {
  const action = `${props.context.site.base}/entrar/codigo`;
  return (
    <Layout title="Código de verificação" context={props.context}>
      <h1>Código de verificação</h1>
      <Alert message={props.error} />
      {props.enrolment ? (
        <>
          <p>A verificação em duas etapas é obrigatória aqui: ative-a para entrar.</p>
          <TotpEnrolment enrolment={props.enrolment} action={action} submit="Ativar e entrar" csrfToken={props.context.csrfToken} />
        </>
      ) : (
        <>
          <p>Digite o código de 6 dígitos do seu aplicativo autenticador.</p>
          <CodeForm action={action} submit="Confirmar" csrfToken={props.context.csrfToken} />
        </>
      )}
    </Layout>
  );
}

export function InvitePage(props: { context: PageContext; token: string; error?: string | undefined }) {
  return (
    <Layout title="Criar senha" context={props.context}>
      <h1 safe>{`Bem-vindo ao ${props.context.site.brand}`}</h1>
      <p>Escolha uma senha de 12 a 128 caracteres para entrar.</p>
      <Alert message={props.error} />
      <form class="stack" method="post" action={`${props.context.site.base}/convite/${props.token}`}>
        <CsrfField token={props.context.csrfToken} />
        <label>
          Nova senha
          <input type="password" name="password" autocomplete="new-password" minlength="12" maxlength="128" required />
        </label>
        <button type="submit">Definir senha</button>
      </form>
    </Layout>
  );
}

/** An invitation link that no longer sets a password: the message, what to do, and no form. */
export function InviteRefusedPage(props: { context: PageContext }) {
  const base = props.context.site.base;
  return (
    <Layout title="Convite indisponível" context={props.context}>
      <h1>Convite indisponível</h1>
      <p class="alert" role="alert">
        {messages.inviteInvalid}
      </p>
      <p>
        Peça um novo convite a quem convidou você: cada link vale uma vez, por 72 horas. Já definiu sua senha? <a href={`${base}/entrar`}>Entre</a>.
      </p>
    </Layout>
  );
}

export function ErrorPage(props: { context: PageContext; title: string; message: string }) {
  return (
    <Layout title={props.title} context={props.context}>
      <h1 safe>{props.title}</h1>
      <p class="alert" role="alert" safe>
        {props.message}
      </p>
      <p>
        <a href={props.context.site.base}>Voltar ao início</a>
      </p>
    </Layout>
  );
}
