import type { Children } from '@kitajs/html';
import { Alert, CsrfField, formatDate, Layout, Notice, DataTable, type MenuGroup, type MenuItem, type PageContext, type Site } from '../pages/components.js';
import type { OperatorRole } from '../platform/schema.js';
import { OPERATOR_ROLES } from '../operators/roles.js';
import type { OperatorView } from '../operators/service.js';
import type { presentSend } from '../sends/service.js';

/** The lengths of the queues a team works (the menu shows them). */
export type QueueCounts = { recipients: number; withdrawals: number; disputes: number; sends: number };

/** The back-office's menu (DESIGN.md §11), with each queue's length. */
export function backofficeSite(counts: QueueCounts | undefined): Site {
  const menu: MenuItem[] = [
    { href: '/backoffice', title: 'Filas' },
    { href: '/backoffice/destinatarios', title: 'Destinatários', count: counts?.recipients },
    { href: '/backoffice/saques', title: 'Saques', count: counts?.withdrawals },
    { href: '/backoffice/med', title: 'MED', count: counts?.disputes },
    { href: '/backoffice/envios', title: 'Envios', count: counts?.sends },
    { href: '/backoffice/contas', title: 'Contas' },
    { href: '/backoffice/transacoes', title: 'Transações' },
    { href: '/backoffice/alertas', title: 'Alertas' },
    { href: '/backoffice/provedores', title: 'Provedores' },
    { href: '/backoffice/auditoria', title: 'Auditoria' },
    { href: '/backoffice/operadores', title: 'Operadores' },
  ];
  // One group without a title: the back-office's pages side by side, folded into Menu on a phone.
  const groups: MenuGroup[] = [{ items: menu }];
  return { base: '/backoffice', brand: 'Back-office PIX', menu: groups };
}

/** A page of the back-office: its title, what the last action said, its content. */
export function Page(props: { context: PageContext; title: string; error?: string | undefined; notice?: string | undefined; children?: Children }) {
  return (
    <Layout title={props.title} context={props.context}>
      <h1 safe>{props.title}</h1>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      {props.children}
    </Layout>
  );
}

/**
 * One click from an item to its account: its name, or the id's last 8 digits (a UUIDv7 begins with
 * its creation time, the same for every account of a minute; it ends at random). The full id is the title.
 */
export const AccountLink = (props: { accountId: string; name?: string | undefined }) => (
  <a href={`/backoffice/contas/${props.accountId}`} title={props.accountId} safe>
    {props.name ?? `…${props.accountId.slice(-8)}`}
  </a>
);

/** A form that posts one action (a button), with optional fields before the button. */
export function ActionForm(props: { action: string; csrfToken: string; submit: string; danger?: boolean; children?: Children }) {
  return (
    <form class="inline" method="post" action={props.action}>
      <CsrfField token={props.csrfToken} />
      {props.children}
      <button type="submit" class={props.danger ? 'danger' : undefined} safe>
        {props.submit}
      </button>
    </form>
  );
}

/** An invitation just made: its one-time link, shown to whoever invited, to send on. */
export const InviteLinkNotice = (props: { invited: { email: string; inviteUrl: string } | undefined; note?: string }) =>
  props.invited ? (
    <div class="notice" role="status">
      <p safe>{`Convite para ${props.invited.email}: envie este link (vale uma vez, por 72 horas). ${props.note ?? ''}`.trim()}</p>
      <p>
        <code class="secret" safe>
          {props.invited.inviteUrl}
        </code>
      </p>
    </div>
  ) : (
    ''
  );

/** Why an action is not offered to this role (the server refuses it either way). */
export const ReadOnly = (props: { role: string }) => <p class="muted" safe>{`Seu papel (${props.role}) permite ver, não alterar.`}</p>;

export type QueueItem = { href: string; label: string; accountId: string; since: number };

export type QueuesData = { oldest: { title: string; href: string; count: number; items: QueueItem[] }[] };

/** Filas: each queue's length and its oldest items, one click from their account. */
export function QueuesPage(props: { context: PageContext; data: QueuesData }) {
  return (
    <Page context={props.context} title="Filas">
      <div class="cards">
        {props.data.oldest.map((queue) => (
          <section class="card" aria-labelledby={`fila-${queue.href.replaceAll('/', '-')}`}>
            <h2 id={`fila-${queue.href.replaceAll('/', '-')}`}>
              <a href={queue.href} safe>
                {queue.title}
              </a>
            </h2>
            <p class="value" safe>
              {String(queue.count)}
            </p>
            {queue.items.length === 0 ? (
              <p class="muted empty">Nada na fila: nada a fazer aqui agora.</p>
            ) : (
              <ul>
                {queue.items.map((item) => (
                  <li>
                    <a href={item.href} safe>
                      {item.label}
                    </a>{' '}
                    <span class="muted" safe>{`desde ${formatDate(item.since)}`}</span> · <AccountLink accountId={item.accountId} />
                  </li>
                ))}
              </ul>
            )}
          </section>
        ))}
      </div>
    </Page>
  );
}

const SEND_STATES: Record<string, string> = {
  unsent: 'não enviado',
  sent: 'sem desfecho',
  watching: 'falhou; em observação',
  owed: 'débito pendente',
  closed: 'encerrado',
};

type SendNote = ReturnType<typeof presentSend>['history'][number];

/** A send's history as lines to read: the same answer repeated in a row is one line with its count and its first and last time. */
function historyLines(history: SendNote[]): string[] {
  const runs: { first: SendNote; last: SendNote; count: number }[] = [];
  for (const note of history) {
    const run = runs.at(-1);
    if (run && run.first.step === note.step && run.first.answer === note.answer && run.first.detail === note.detail) {
      run.last = note;
      run.count++;
    } else runs.push({ first: note, last: note, count: 1 });
  }
  return runs.map(({ first, last, count }) => {
    const when = count === 1 ? formatDate(new Date(first.at)) : `${formatDate(new Date(first.at))} a ${formatDate(new Date(last.at))}, ${count} vezes`;
    return `${when} — ${first.step}: ${first.answer}${first.detail ? ` (${first.detail})` : ''}`;
  });
}

/** Envios: withdrawals and refunds the PSP has not answered for in 24 hours, and debits owed after a late completion, with all that is known. */
export function ProviderSendsPage(props: { context: PageContext; sends: ReturnType<typeof presentSend>[] }) {
  return (
    <Page context={props.context} title="Envios ao PSP">
      <p>
        Saques e devoluções sem desfecho no PSP após 24 horas, e débitos pendentes de conclusões tardias. Nada é estornado automaticamente: confira com o PSP
        antes de agir (docs/providers.md).
      </p>
      {props.sends.length === 0 ? (
        <p class="muted empty">Nenhum envio aguardando a equipe. Um saque ou devolução sem resposta do PSP por 24 horas aparece aqui e em Filas.</p>
      ) : (
        <DataTable label="Envios ao PSP" columns={['Desde', 'Tipo', 'Conta', 'Id', 'Situação', 'Tentativas e consultas']}>
          {props.sends.map((item) => (
            <tr>
              <td safe>{formatDate(item.createdAt)}</td>
              <td>{item.kind === 'withdrawal' ? 'Saque' : 'Devolução'}</td>
              <td>
                <AccountLink accountId={item.accountId} />
              </td>
              <td>
                <code safe>{item.sendId}</code>
              </td>
              <td safe>{SEND_STATES[item.state] ?? item.state}</td>
              <td>
                <ol>
                  {historyLines(item.history).map((line) => (
                    <li safe>{line}</li>
                  ))}
                </ol>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Page>
  );
}

export type AlertView = {
  alertId: string;
  accountId: string | null;
  kind: string;
  severity: 'normal' | 'high';
  transactionId: string | null;
  details: Record<string, unknown>;
  createdAt: number;
};

export function AlertsPage(props: { context: PageContext; alerts: AlertView[] }) {
  return (
    <Page context={props.context} title="Alertas">
      <p>
        Alertas internos, os mais recentes primeiro (saques a terceiros e outros sinais para a equipe de compliance). As chaves e os documentos marcados por
        suspeita de fraude estão em <a href="/backoffice/marcacoes">Marcações de fraude</a>.
      </p>
      {props.alerts.length === 0 ? (
        <p class="muted empty">
          Nenhum alerta. Saques a terceiros e envios sem desfecho geram alertas aqui; as filas de trabalho estão em <a href="/backoffice">Filas</a>.
        </p>
      ) : (
        <DataTable label="Alertas" columns={['Quando', 'Tipo', 'Gravidade', 'Conta', 'Transação', 'Detalhes']}>
          {props.alerts.map((alert) => (
            <tr>
              <td safe>{formatDate(alert.createdAt)}</td>
              <td safe>{alert.kind}</td>
              <td>{alert.severity === 'high' ? 'alta' : 'normal'}</td>
              <td>{alert.accountId ? <AccountLink accountId={alert.accountId} /> : 'Plataforma'}</td>
              <td>
                <code safe>{alert.transactionId ?? '—'}</code>
              </td>
              <td>
                <code safe>{JSON.stringify(alert.details)}</code>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Page>
  );
}

const ROLE_NAMES: Record<OperatorRole, string> = {
  admin: 'admin (tudo)',
  compliance: 'compliance (KYC, destinatários, MED, bloqueios)',
  support: 'support (leitura e reenvio de webhooks)',
};

const RoleSelect = (props: { selected?: OperatorRole | undefined; label?: string | undefined }) => (
  <label>
    <span safe>{props.label ?? 'Papel'}</span>
    <select name="role">
      {OPERATOR_ROLES.map((role) => (
        <option value={role} selected={props.selected === role} safe>
          {ROLE_NAMES[role]}
        </option>
      ))}
    </select>
  </label>
);

export type OperatorsData = {
  operators: OperatorView[];
  mayManage: boolean;
  currentOperatorId: string;
  invited?: { email: string; inviteUrl: string } | undefined;
};

export function OperatorsPage(props: { context: PageContext; data: OperatorsData; error?: string | undefined; notice?: string | undefined }) {
  const { data, context } = props;
  return (
    <Page context={context} title="Operadores" error={props.error} notice={props.notice}>
      <InviteLinkNotice invited={data.invited} note="A verificação em duas etapas é ativada no primeiro acesso." />
      <DataTable label="Operadores" columns={['E-mail', 'Papel', 'Situação', 'Desde', data.mayManage && 'Ações']}>
        {data.operators.map((operator) => (
          <tr>
            <td safe>{operator.email}</td>
            <td>{operator.role}</td>
            <td>{operator.invitationPending ? 'Convite pendente' : operator.totpEnrolled ? 'Ativo, com 2FA' : 'Ativo; 2FA no próximo acesso'}</td>
            <td safe>{formatDate(operator.createdAt)}</td>
            {data.mayManage ? (
              <td>
                <ActionForm action={`/backoffice/operadores/${operator.operatorId}/papel`} csrfToken={context.csrfToken} submit="Mudar papel">
                  <RoleSelect selected={operator.role} label={`Papel de ${operator.email}`} />
                </ActionForm>
                {operator.operatorId === data.currentOperatorId ? (
                  ''
                ) : (
                  <ActionForm action={`/backoffice/operadores/${operator.operatorId}/remover`} csrfToken={context.csrfToken} submit="Remover" danger />
                )}
              </td>
            ) : (
              ''
            )}
          </tr>
        ))}
      </DataTable>
      <h2>Convidar operador</h2>
      {data.mayManage ? (
        <form class="stack" method="post" action="/backoffice/operadores">
          <CsrfField token={context.csrfToken} />
          <label>
            E-mail
            <input type="email" name="email" required maxlength="254" autocomplete="off" />
          </label>
          <RoleSelect />
          <button type="submit">Convidar</button>
        </form>
      ) : (
        <ReadOnly role={context.user?.role ?? ''} />
      )}
    </Page>
  );
}
