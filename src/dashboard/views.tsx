import type { Children } from '@kitajs/html';
import { formatBrl } from '../pix/money.js';

/** Dates as a person in Brazil reads them (DESIGN.md §10: America/Sao_Paulo). */
const dateFormat = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
const formatDate = (at: Date | number): string => dateFormat.format(typeof at === 'number' ? new Date(at) : at);

/** What every page knows of the request: the signed-in user (none on the sign-in pages) and the form token. */
export type PageContext = { csrfToken: string; user?: { email: string; role: string } | undefined };

const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

function Layout(props: { title: string; context: PageContext; children?: Children }) {
  return (
    <>
      {'<!doctype html>'}
      <html lang="pt-BR">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title safe>{`${props.title} · Painel PIX`}</title>
          <link rel="stylesheet" href="/dashboard/assets/app.css" />
        </head>
        <body>
          <a class="skip" href="#conteudo">
            Pular para o conteúdo
          </a>
          <header>
            <nav aria-label="Principal">
              <span class="brand">Painel PIX</span>
              {props.context.user ? (
                <>
                  <a href="/dashboard">Início</a>
                  <a href="/dashboard/cobrancas">Cobranças</a>
                  <a href="/dashboard/chaves">Chaves de API</a>
                  <a href="/dashboard/webhooks">Webhooks</a>
                  <a href="/dashboard/seguranca">Segurança</a>
                  <form method="post" action="/dashboard/sair">
                    <CsrfField token={props.context.csrfToken} />
                    <button type="submit" class="link">
                      Sair
                    </button>
                  </form>
                </>
              ) : (
                ''
              )}
            </nav>
          </header>
          <main id="conteudo">{props.children}</main>
        </body>
      </html>
    </>
  );
}

const Alert = ({ message }: { message?: string | undefined }) =>
  message ? (
    <p class="alert" role="alert" safe>
      {message}
    </p>
  ) : (
    ''
  );

const Notice = ({ message }: { message?: string | undefined }) =>
  message ? (
    <p class="notice" role="status" safe>
      {message}
    </p>
  ) : (
    ''
  );

/** The 6-digit TOTP code, posted to `action`. */
const CodeForm = (props: { action: string; submit: string; csrfToken: string }) => (
  <form class="stack" method="post" action={props.action}>
    <CsrfField token={props.csrfToken} />
    <label>
      Código
      <input name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required />
    </label>
    <button type="submit" safe>
      {props.submit}
    </button>
  </form>
);

/** A secret shown this once (an API key, a webhook signing secret), with what it is. */
const ShownOnce = (props: { note: string; value: string }) => (
  <div class="notice" role="status">
    <p safe>{props.note}</p>
    <p>
      <code class="secret" safe>
        {props.value}
      </code>
    </p>
  </div>
);

export function SignInPage(props: { context: PageContext; error?: string | undefined; notice?: string | undefined; email?: string | undefined }) {
  return (
    <Layout title="Entrar" context={props.context}>
      <h1>Entrar</h1>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      <form class="stack" method="post" action="/dashboard/entrar">
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

export function CodePage(props: { context: PageContext; error?: string | undefined }) {
  return (
    <Layout title="Código de verificação" context={props.context}>
      <h1>Código de verificação</h1>
      <p>Digite o código de 6 dígitos do seu aplicativo autenticador.</p>
      <Alert message={props.error} />
      <CodeForm action="/dashboard/entrar/codigo" submit="Confirmar" csrfToken={props.context.csrfToken} />
    </Layout>
  );
}

export function InvitePage(props: { context: PageContext; token: string; error?: string | undefined }) {
  return (
    <Layout title="Criar senha" context={props.context}>
      <h1>Bem-vindo ao painel</h1>
      <p>Escolha uma senha de 12 a 128 caracteres para entrar.</p>
      <Alert message={props.error} />
      <form class="stack" method="post" action={`/dashboard/convite/${props.token}`}>
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

export type HomeData = {
  balance: { available: number; blocked: number; withdrawable: number };
  transactions: { transactionId: string; type: string; amountCents: number; status: string; createdAt: number }[];
};

const TYPE_NAMES: Record<string, string> = { pix_in: 'Cobrança', withdrawal: 'Saque' };

export function HomePage(props: { context: PageContext; data: HomeData }) {
  const { balance, transactions } = props.data;
  return (
    <Layout title="Início" context={props.context}>
      <h1>Início</h1>
      <section aria-labelledby="saldo" class="cards">
        <h2 id="saldo" class="skip">
          Saldo
        </h2>
        <div class="card">
          <div class="label">Disponível</div>
          <div class="value" safe>
            {formatBrl(balance.available)}
          </div>
        </div>
        <div class="card">
          <div class="label">Bloqueado</div>
          <div class="value" safe>
            {formatBrl(balance.blocked)}
          </div>
        </div>
        <div class="card">
          <div class="label">Sacável</div>
          <div class="value" safe>
            {formatBrl(balance.withdrawable)}
          </div>
        </div>
      </section>
      <h2>Últimas transações</h2>
      {transactions.length === 0 ? (
        <p class="muted">Nenhuma transação ainda. Crie uma cobrança pela API (POST /v1/pix) e ela aparece aqui.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Data</th>
                <th scope="col">Tipo</th>
                <th scope="col">Valor</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {transactions.map((row) => (
                <tr>
                  <td safe>{formatDate(row.createdAt)}</td>
                  <td safe>{TYPE_NAMES[row.type] ?? row.type}</td>
                  <td safe>{formatBrl(row.amountCents)}</td>
                  <td safe>{row.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

export type SecurityData = {
  totpEnrolled: boolean;
  /** While enrolling: the secret as text and its QR image (PNG data URL). */
  enrolment?: { secret: string; qrDataUrl: string } | undefined;
};

export function SecurityPage(props: { context: PageContext; data: SecurityData; error?: string | undefined; notice?: string | undefined }) {
  const { data } = props;
  return (
    <Layout title="Segurança" context={props.context}>
      <h1>Segurança</h1>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      <h2>Verificação em duas etapas</h2>
      {data.totpEnrolled ? (
        <p>Ativa. Um código do aplicativo autenticador é pedido ao entrar.</p>
      ) : data.enrolment ? (
        <>
          <p>Leia o QR com o aplicativo autenticador (ou digite a chave) e confirme com o código que ele mostrar.</p>
          <img src={data.enrolment.qrDataUrl} width="200" height="200" alt="QR para o aplicativo autenticador" />
          <p>
            Chave:{' '}
            <code class="secret" safe>
              {data.enrolment.secret}
            </code>
          </p>
          <CodeForm action="/dashboard/seguranca/totp/confirmar" submit="Ativar" csrfToken={props.context.csrfToken} />
        </>
      ) : (
        <form method="post" action="/dashboard/seguranca/totp/iniciar">
          <CsrfField token={props.context.csrfToken} />
          <p>Sem ela, não é possível criar chaves de API, gerenciar webhooks nem sacar pelo painel.</p>
          <button type="submit">Ativar verificação em duas etapas</button>
        </form>
      )}
      <h2>Senha</h2>
      <form class="stack" method="post" action="/dashboard/seguranca/senha">
        <CsrfField token={props.context.csrfToken} />
        <label>
          Senha atual
          <input type="password" name="current" autocomplete="current-password" required />
        </label>
        <label>
          Nova senha
          <input type="password" name="next" autocomplete="new-password" minlength="12" maxlength="128" required />
        </label>
        <button type="submit">Trocar senha</button>
      </form>
      <p class="muted">Trocar a senha encerra as suas outras sessões.</p>
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
        <a href="/dashboard">Voltar ao início</a>
      </p>
    </Layout>
  );
}

export type ApiKeysData = {
  keys: { keyId: string; prefix: string; createdAt: Date; revokedAt: Date | null }[];
  /** The role may create and revoke keys. */
  mayManage: boolean;
  totpEnrolled: boolean;
  /** A key just created: its full secret, shown this once. */
  created?: string | undefined;
};

export function ApiKeysPage(props: { context: PageContext; data: ApiKeysData; error?: string | undefined }) {
  const { data } = props;
  return (
    <Layout title="Chaves de API" context={props.context}>
      <h1>Chaves de API</h1>
      <p>
        Use a chave no cabeçalho <code>{'Authorization: Bearer &lt;chave&gt;'}</code>. A referência da API está em <a href="/docs">/docs</a>.
      </p>
      <Alert message={props.error} />
      {data.created ? <ShownOnce note="Chave criada. Copie agora: ela não será mostrada de novo." value={data.created} /> : ''}
      {data.mayManage ? (
        data.totpEnrolled ? (
          <form method="post" action="/dashboard/chaves">
            <CsrfField token={props.context.csrfToken} />
            <button type="submit">Criar chave</button>
          </form>
        ) : (
          <p>
            Para criar chaves, ative a verificação em duas etapas em <a href="/dashboard/seguranca">Segurança</a>.
          </p>
        )
      ) : (
        <p class="muted">Seu papel permite ver as chaves, não criá-las nem revogá-las.</p>
      )}
      <h2>Chaves da conta</h2>
      {data.keys.length === 0 ? (
        <p class="muted">Nenhuma chave ainda.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Prefixo</th>
                <th scope="col">Criada em</th>
                <th scope="col">Situação</th>
                <th scope="col">Ação</th>
              </tr>
            </thead>
            <tbody>
              {data.keys.map((key) => (
                <tr>
                  <td>
                    <code safe>{key.prefix}</code>
                  </td>
                  <td safe>{formatDate(key.createdAt)}</td>
                  <td>{key.revokedAt ? `Revogada em ${formatDate(key.revokedAt)}` : 'Ativa'}</td>
                  <td>
                    {data.mayManage && !key.revokedAt ? (
                      <form method="post" action={`/dashboard/chaves/${key.keyId}/revogar`}>
                        <CsrfField token={props.context.csrfToken} />
                        <button type="submit" class="link" aria-label={`Revogar a chave ${key.prefix}`}>
                          Revogar
                        </button>
                      </form>
                    ) : (
                      ''
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

export type WebhooksData = {
  endpoints: { endpointId: string; url: string; events: string[]; createdAt: number; previousSecretExpiresAt: number | null }[];
  attempts: {
    deliveryId: string;
    event: string;
    eventId: string;
    url: string;
    attemptNumber: number;
    attemptedAt: number;
    durationMs: number;
    httpStatus: number | null;
    error: string | null;
    payload: string;
  }[];
  mayManage: boolean;
  totpEnrolled: boolean;
  /** A secret just created or rotated, shown this once. */
  secret?: { url: string; value: string } | undefined;
};

export function WebhooksPage(props: { context: PageContext; data: WebhooksData; error?: string | undefined; notice?: string | undefined }) {
  const { data } = props;
  const manage = data.mayManage && data.totpEnrolled;
  return (
    <Layout title="Webhooks" context={props.context}>
      <h1>Webhooks</h1>
      <p>Até 6 URLs HTTPS. Cada entrega é assinada (Standard Webhooks); o histórico guarda 60 dias de tentativas.</p>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      {data.secret ? (
        <ShownOnce note={`Segredo de assinatura de ${data.secret.url}. Copie agora: ele não será mostrado de novo.`} value={data.secret.value} />
      ) : (
        ''
      )}
      {manage ? (
        <form class="stack" method="post" action="/dashboard/webhooks">
          <CsrfField token={props.context.csrfToken} />
          <label>
            URL
            <input type="url" name="url" required maxlength="2048" placeholder="https://" />
          </label>
          <label>
            Eventos (nomes ou categorias separados por vírgula; vazio = todos)
            <input name="events" placeholder="cashin, transfer.paid" />
          </label>
          <button type="submit">Adicionar URL</button>
        </form>
      ) : data.mayManage ? (
        <p>
          Para gerenciar webhooks, ative a verificação em duas etapas em <a href="/dashboard/seguranca">Segurança</a>.
        </p>
      ) : (
        <p class="muted">Seu papel permite ver os webhooks, não alterá-los.</p>
      )}
      <h2>URLs</h2>
      {data.endpoints.length === 0 ? (
        <p class="muted">Nenhuma URL cadastrada. Adicione uma para receber os eventos das suas cobranças e saques.</p>
      ) : (
        <ul>
          {data.endpoints.map((endpoint) => (
            <li>
              <p>
                <strong safe>{endpoint.url}</strong>
                <br />
                <span class="muted" safe>
                  {endpoint.events.length === 0 ? 'Todos os eventos' : endpoint.events.join(', ')}
                </span>
              </p>
              {manage ? (
                <>
                  <form method="post" action={`/dashboard/webhooks/${endpoint.endpointId}/rotacionar`}>
                    <CsrfField token={props.context.csrfToken} />
                    <button type="submit" class="link" aria-label={`Trocar o segredo de ${endpoint.url}`}>
                      Trocar segredo
                    </button>
                  </form>
                  <form method="post" action={`/dashboard/webhooks/${endpoint.endpointId}/excluir`}>
                    <CsrfField token={props.context.csrfToken} />
                    <button type="submit" class="link" aria-label={`Excluir ${endpoint.url}`}>
                      Excluir
                    </button>
                  </form>
                </>
              ) : (
                ''
              )}
            </li>
          ))}
        </ul>
      )}
      <h2>Histórico de entregas</h2>
      {data.attempts.length === 0 ? (
        <p class="muted">Nenhuma entrega ainda.</p>
      ) : (
        <ul>
          {data.attempts.map((attempt) => (
            <li>
              <details>
                <summary safe>
                  {`${formatDate(attempt.attemptedAt)} · ${attempt.event} · tentativa ${attempt.attemptNumber} · ${
                    attempt.httpStatus === null ? (attempt.error ?? 'sem resposta') : `HTTP ${attempt.httpStatus}`
                  } · ${attempt.durationMs} ms`}
                </summary>
                <p safe>{`URL: ${attempt.url} · evento ${attempt.eventId}`}</p>
                <pre safe>{attempt.payload}</pre>
                {manage ? (
                  <form method="post" action={`/dashboard/webhooks/entregas/${attempt.deliveryId}/reenviar`}>
                    <CsrfField token={props.context.csrfToken} />
                    <button type="submit">Reenviar</button>
                  </form>
                ) : (
                  ''
                )}
              </details>
            </li>
          ))}
        </ul>
      )}
    </Layout>
  );
}

export type ChargeRow = {
  transactionId: string;
  amountCents: number;
  feeCents: number;
  netCents: number;
  status: string;
  externalRef: string | null;
  pixPayload: string | null;
  createdAt: number;
  expiresAt: number | null;
  paidAt: number | null;
  endToEndId?: string | undefined;
};

export type ChargeForm = { amount: string; name: string; email: string; phone: string; document: string; documentType: string };

export function ChargesPage(props: {
  context: PageContext;
  charges: ChargeRow[];
  mayCreate: boolean;
  form?: ChargeForm | undefined;
  error?: string | undefined;
}) {
  const form = props.form ?? { amount: '', name: '', email: '', phone: '', document: '', documentType: 'cpf' };
  return (
    <Layout title="Cobranças" context={props.context}>
      <h1>Cobranças</h1>
      <Alert message={props.error} />
      {props.mayCreate ? (
        <form class="stack" method="post" action="/dashboard/cobrancas">
          <CsrfField token={props.context.csrfToken} />
          <label>
            Valor (R$)
            <input name="amount" inputmode="decimal" required placeholder="15,00" value={form.amount} />
          </label>
          <label>
            Nome do cliente
            <input name="name" required maxlength="100" autocomplete="off" value={form.name} />
          </label>
          <label>
            E-mail do cliente
            <input type="email" name="email" required autocomplete="off" value={form.email} />
          </label>
          <label>
            Telefone (DDD + número)
            <input name="phone" inputmode="numeric" required placeholder="11987654321" autocomplete="off" value={form.phone} />
          </label>
          <label>
            Documento (CPF ou CNPJ)
            <input name="document" inputmode="numeric" required autocomplete="off" value={form.document} />
          </label>
          <label>
            Tipo do documento
            <select name="documentType">
              <option value="cpf" selected={form.documentType !== 'cnpj'}>
                CPF
              </option>
              <option value="cnpj" selected={form.documentType === 'cnpj'}>
                CNPJ
              </option>
            </select>
          </label>
          <button type="submit">Criar cobrança</button>
        </form>
      ) : (
        ''
      )}
      <h2>Últimas cobranças</h2>
      {props.charges.length === 0 ? (
        <p class="muted">Nenhuma cobrança ainda.{props.mayCreate ? ' Crie a primeira acima ou pela API (POST /v1/pix).' : ''}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Criada em</th>
                <th scope="col">Valor</th>
                <th scope="col">Status</th>
                <th scope="col">Detalhe</th>
              </tr>
            </thead>
            <tbody>
              {props.charges.map((charge) => (
                <tr>
                  <td safe>{formatDate(charge.createdAt)}</td>
                  <td safe>{formatBrl(charge.amountCents)}</td>
                  <td safe>{charge.status}</td>
                  <td>
                    <a
                      href={`/dashboard/cobrancas/${charge.transactionId}`}
                      aria-label={`Ver a cobrança de ${formatBrl(charge.amountCents)} criada em ${formatDate(charge.createdAt)}`}
                    >
                      Ver
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

export function ChargePage(props: { context: PageContext; charge: ChargeRow }) {
  const { charge } = props;
  return (
    <Layout title="Cobrança" context={props.context}>
      <h1 safe>{`Cobrança de ${formatBrl(charge.amountCents)}`}</h1>
      <dl>
        <dt>Status</dt>
        <dd safe>{charge.status}</dd>
        <dt>Tarifa</dt>
        <dd safe>{formatBrl(charge.feeCents)}</dd>
        <dt>Líquido</dt>
        <dd safe>{formatBrl(charge.netCents)}</dd>
        <dt>Criada em</dt>
        <dd safe>{formatDate(charge.createdAt)}</dd>
        <dt>Vence em</dt>
        <dd safe>{charge.expiresAt === null ? '—' : formatDate(charge.expiresAt * 1000)}</dd>
        <dt>Paga em</dt>
        <dd safe>{charge.paidAt === null ? '—' : formatDate(charge.paidAt)}</dd>
        {charge.endToEndId ? (
          <>
            <dt>EndToEndId</dt>
            <dd>
              <code safe>{charge.endToEndId}</code>
            </dd>
          </>
        ) : (
          ''
        )}
      </dl>
      {charge.pixPayload ? (
        <>
          <h2>QR Code</h2>
          <img src={`/dashboard/cobrancas/${charge.transactionId}/qrcode.png`} width="256" height="256" alt="QR Code PIX da cobrança" />
          <label>
            PIX copia e cola
            <textarea readonly rows="4" safe>
              {charge.pixPayload}
            </textarea>
          </label>
        </>
      ) : (
        ''
      )}
      <p>
        <a href="/dashboard/cobrancas">Voltar às cobranças</a>
      </p>
    </Layout>
  );
}
