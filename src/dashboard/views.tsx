import type { TransactionView } from '../transactions/presenter.js';
import type { DailyMoney } from '../ledger/service.js';
import { AttentionList, MoneyChart, type Attention } from './homeViews.js';
import { Alert, CsrfField, formatDate, Layout, Money, Notice, ShownOnce, Status, TotpEnrolment, type PageContext, DataTable } from '../pages/components.js';

export type HomeData = {
  balance: { available: number; blocked: number; withdrawable: number; owed: number; shortfall: number };
  /** Of `blocked`: received PIX the PSP holds (cautionary blocks). */
  heldCents: number;
  transactions: TransactionView[];
  /** The last 30 days' money, oldest first, and what needs attention (homeViews.tsx). */
  days: DailyMoney[];
  attention: Attention;
};

const TYPE_NAMES: Record<string, string> = { pix_in: 'Cobrança', withdrawal: 'Saque' };

export function HomePage(props: { context: PageContext; data: HomeData }) {
  const { balance, heldCents, transactions } = props.data;
  return (
    <Layout title="Início" context={props.context}>
      <h1>Início</h1>
      <div class="home-top">
        <section aria-labelledby="saldo" class="cards">
          <h2 id="saldo" class="skip">
            Saldo
          </h2>
          <div class="card">
            <div class="label">Disponível</div>
            <div class="value">
              <Money cents={balance.available} />
            </div>
          </div>
          <div class="card">
            <div class="label">Bloqueado</div>
            <div class="value">
              <Money cents={balance.blocked} />
            </div>
            {heldCents > 0 ? (
              <div class="muted">
                dos quais <Money cents={heldCents} /> retidos pelo PSP (bloqueio cautelar, até 72 h)
              </div>
            ) : (
              ''
            )}
          </div>
          <div class="card">
            <div class="label">Sacável</div>
            <div class="value">
              <Money cents={balance.withdrawable} />
            </div>
          </div>
          {balance.owed > 0 ? (
            <div class="card">
              <div class="label">Devido (MED)</div>
              <div class="value">
                <Money cents={balance.owed} />
              </div>
            </div>
          ) : (
            ''
          )}
        </section>
        <MoneyChart days={props.data.days} />
      </div>
      {balance.owed > 0 || balance.shortfall > 0 ? (
        <p class="alert" role="status">
          {balance.owed > 0 ? (
            <>
              Devoluções do MED levaram <Money cents={balance.owed} /> além do seu saldo: os próximos créditos quitam esse valor primeiro.{' '}
            </>
          ) : (
            ''
          )}
          {balance.shortfall > 0 ? (
            <>
              Disputas abertas ainda precisam de <Money cents={balance.shortfall} /> bloqueados: os próximos créditos ficam bloqueados até completá-los.{' '}
            </>
          ) : (
            ''
          )}
          <a href="/dashboard/disputas">Ver as disputas</a>
        </p>
      ) : (
        ''
      )}
      <AttentionList attention={props.data.attention} />
      <h2>Últimas transações</h2>
      {transactions.length === 0 ? (
        <p class="muted empty">
          Nenhuma transação ainda. <a href="/dashboard/cobrancas">Crie uma cobrança</a> ou use a API (POST /v1/pix) e ela aparece aqui.
        </p>
      ) : (
        <DataTable label="Últimas transações" columns={['Data', 'Tipo', 'Valor', 'Status']}>
          {transactions.map((row) => (
            <tr>
              <td safe>{formatDate(row.createdAt)}</td>
              <td safe>{TYPE_NAMES[row.type] ?? row.type}</td>
              <td>
                <Money cents={row.amountCents} />
              </td>
              <td>
                <Status status={row.status} of={row.type === 'withdrawal' ? 'withdrawal' : 'charge'} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Layout>
  );
}

export type SecurityData = {
  totpEnrolled: boolean;
  sessions: { createdAt: number; lastSeenAt: number; current: boolean }[];
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
        <TotpEnrolment enrolment={data.enrolment} action="/dashboard/seguranca/totp/confirmar" submit="Ativar" csrfToken={props.context.csrfToken} />
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
      <h2>Sessões</h2>
      <DataTable label="Sessões" columns={['Entrada', 'Último uso', 'Sessão']}>
        {data.sessions.map((session) => (
          <tr>
            <td safe>{formatDate(session.createdAt)}</td>
            <td safe>{formatDate(session.lastSeenAt)}</td>
            <td>{session.current ? 'Esta sessão' : 'Outra sessão'}</td>
          </tr>
        ))}
      </DataTable>
      {data.sessions.some((session) => !session.current) ? (
        <form method="post" action="/dashboard/seguranca/sessoes/encerrar">
          <CsrfField token={props.context.csrfToken} />
          <button type="submit">Encerrar as outras sessões</button>
        </form>
      ) : (
        ''
      )}
    </Layout>
  );
}

export type ApiKeysData = {
  keys: { keyId: string; prefix: string; createdAt: Date; revokedAt: Date | null; lastUsedAt: Date | null }[];
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
        <p class="muted empty">
          {data.mayManage && data.totpEnrolled ? (
            <>
              Nenhuma chave ainda. Crie a primeira com o botão Criar chave acima e use-a na API (<a href="/docs">referência</a>).
            </>
          ) : data.mayManage ? (
            <>
              Nenhuma chave ainda. Ative a verificação em duas etapas em <a href="/dashboard/seguranca">Segurança</a> para criar a primeira.
            </>
          ) : (
            <>Nenhuma chave ainda. Quem tem o papel de dono ou desenvolvedor cria as chaves da API.</>
          )}
        </p>
      ) : (
        <DataTable label="Chaves da conta" columns={['Prefixo', 'Criada em', 'Último uso', 'Situação', 'Ação']}>
          {data.keys.map((key) => (
            <tr>
              <td>
                <code safe>{key.prefix}</code>
              </td>
              <td safe>{formatDate(key.createdAt)}</td>
              <td>{key.lastUsedAt ? formatDate(key.lastUsedAt) : 'Nunca usada'}</td>
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
        </DataTable>
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
        <form id="nova-url" class="stack" method="post" action="/dashboard/webhooks">
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
        <p class="muted empty">
          {manage ? (
            <>
              Nenhuma URL cadastrada. Adicione uma em <a href="#nova-url">Adicionar URL</a> para receber os eventos das suas cobranças e saques.
            </>
          ) : data.mayManage ? (
            <>
              Nenhuma URL cadastrada. Ative a verificação em duas etapas em <a href="/dashboard/seguranca">Segurança</a> para adicionar a primeira.
            </>
          ) : (
            <>Nenhuma URL cadastrada. Quem tem o papel de dono ou desenvolvedor cadastra as URLs que recebem os eventos.</>
          )}
        </p>
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
        <p class="muted empty">
          Nenhuma entrega ainda. Cada evento enviado às URLs acima (uma cobrança criada ou paga, um saque…) aparece aqui com o corpo exato e a resposta.
        </p>
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
