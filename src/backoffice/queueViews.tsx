import { formatDate, DataTable, Money, Status, type PageContext } from '../pages/components.js';
import type { InfractionView } from '../infractions/presenter.js';
import type { EvidenceView } from '../infractions/evidenceSchemas.js';
import { EvidenceList } from '../pages/evidenceViews.js';
import { AccountLink, ActionForm, Page, ReadOnly } from './views.js';

export type OperatorRecipientView = {
  accountId: string;
  recipientId: string;
  status: string;
  legalName: string;
  document: string;
  documentType: string;
  pixKey: string;
  pixKeyType: string;
  label: string | null;
  approvedLabel: string | null;
  reason: string | null;
  createdAt: number;
  updatedAt: number;
};

export type RecipientsQueueData = { status: 'pending_review' | 'active'; recipients: OperatorRecipientView[]; mayAct: boolean; accountId?: string | undefined };

/** Destinatários: the review queue (oldest first), or the active ones to deactivate. */
export function RecipientsQueuePage(props: { context: PageContext; data: RecipientsQueueData; error?: string | undefined; notice?: string | undefined }) {
  const { data, context } = props;
  const reviewing = data.status === 'pending_review';
  const base = `/backoffice/destinatarios${data.accountId ? `?conta=${data.accountId}` : ''}`;
  const other = reviewing ? 'active' : 'pending_review';
  const otherHref = `/backoffice/destinatarios?status=${other}${data.accountId ? `&conta=${data.accountId}` : ''}`;
  return (
    <Page context={context} title="Destinatários" error={props.error} notice={props.notice}>
      <p>
        {reviewing ? 'Em análise (KYC/AML de terceiros), os mais antigos primeiro. ' : 'Aprovados: desative quem não deve mais receber saques. '}
        <a href={otherHref}>{reviewing ? 'Ver os aprovados' : 'Ver a fila de análise'}</a>
        {data.accountId ? (
          <>
            {' · '}
            <a href={base.split('?')[0] ?? base}>Todas as contas</a>
          </>
        ) : (
          ''
        )}
      </p>
      {data.mayAct ? '' : <ReadOnly role={context.user?.role ?? ''} />}
      {data.recipients.length === 0 ? (
        <p class="muted empty">
          {reviewing ? (
            <>
              Nenhum destinatário aguardando análise. Os cadastros dos lojistas (painel ou API) chegam aqui; os aprovados estão em{' '}
              <a href={otherHref}>Ver os aprovados</a>.
            </>
          ) : (
            <>
              Nenhum destinatário aprovado. Aprove os que aguardam em <a href={otherHref}>Ver a fila de análise</a>.
            </>
          )}
        </p>
      ) : (
        <ul class="cases">
          {data.recipients.map((recipient) => (
            <li>
              <article aria-labelledby={`r-${recipient.recipientId}`}>
                <h2 id={`r-${recipient.recipientId}`} safe>
                  {recipient.legalName}
                </h2>
                <dl>
                  <dt>Conta</dt>
                  <dd>
                    <AccountLink accountId={recipient.accountId} />
                  </dd>
                  <dt>Documento</dt>
                  <dd safe>{`${recipient.documentType.toUpperCase()} ${recipient.document}`}</dd>
                  <dt>Chave PIX</dt>
                  <dd safe>{`${recipient.pixKeyType}: ${recipient.pixKey}`}</dd>
                  <dt>Apelido pedido</dt>
                  <dd safe>{recipient.approvedLabel ?? recipient.label ?? '—'}</dd>
                  <dt>Situação</dt>
                  <dd>
                    <Status status={recipient.status} />
                  </dd>
                  <dt>{reviewing ? 'Na fila desde' : 'Atualizado em'}</dt>
                  <dd safe>{formatDate(recipient.updatedAt)}</dd>
                </dl>
                {data.mayAct && reviewing ? (
                  <>
                    <ActionForm
                      action={`/backoffice/destinatarios/${recipient.accountId}/${recipient.recipientId}/aprovar`}
                      csrfToken={context.csrfToken}
                      submit="Aprovar"
                    >
                      <label>
                        Apelido que o lojista verá
                        <input name="label" maxlength="60" value={recipient.label ?? ''} />
                      </label>
                    </ActionForm>
                    <ActionForm
                      action={`/backoffice/destinatarios/${recipient.accountId}/${recipient.recipientId}/recusar`}
                      csrfToken={context.csrfToken}
                      submit="Recusar"
                      danger
                    >
                      <label>
                        Motivo da recusa
                        <input name="reason" maxlength="500" />
                      </label>
                    </ActionForm>
                  </>
                ) : (
                  ''
                )}
                {data.mayAct && !reviewing ? (
                  <ActionForm
                    action={`/backoffice/destinatarios/${recipient.accountId}/${recipient.recipientId}/desativar`}
                    csrfToken={context.csrfToken}
                    submit="Desativar"
                    danger
                  >
                    <label>
                      Motivo
                      <input name="reason" maxlength="500" />
                    </label>
                  </ActionForm>
                ) : (
                  ''
                )}
              </article>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

/** A withdrawal as the approval queue shows it: who asked, how much, to whom. */
export type QueuedWithdrawal = {
  transactionId: string;
  accountId: string;
  amountCents: number;
  feeCents: number;
  createdAt: number;
  pixKey: string | null;
  pixKeyType: string | null;
  recipientId: string | null;
  holderName: string | null;
};

export type WithdrawalsQueueData = { withdrawals: QueuedWithdrawal[]; mayAct: boolean };

/** Saques: withdrawals of manual-approval accounts awaiting a decision, oldest first. */
export function WithdrawalsQueuePage(props: { context: PageContext; data: WithdrawalsQueueData; error?: string | undefined; notice?: string | undefined }) {
  const { data, context } = props;
  return (
    <Page context={context} title="Saques" error={props.error} notice={props.notice}>
      <p>Saques de contas em aprovação manual, os mais antigos primeiro. Aprovar envia o PIX; recusar devolve o valor e a tarifa ao saldo.</p>
      {data.mayAct ? '' : <ReadOnly role={context.user?.role ?? ''} />}
      {data.withdrawals.length === 0 ? (
        <p class="muted empty">
          Nenhum saque aguardando aprovação. Só as contas com saques por aprovação manual (em <a href="/backoffice/contas">Contas</a>, Configuração) pedem
          aprovação; os pedidos delas chegam aqui.
        </p>
      ) : (
        <DataTable label="Saques aguardando aprovação" columns={['Pedido em', 'Conta', 'Valor', 'Destino', 'Transação', data.mayAct && 'Decisão']}>
          {data.withdrawals.map((withdrawal) => (
            <tr>
              <td safe>{formatDate(withdrawal.createdAt)}</td>
              <td>
                <AccountLink accountId={withdrawal.accountId} />
              </td>
              <td>
                <Money cents={withdrawal.amountCents} /> (tarifa <Money cents={withdrawal.feeCents} />)
              </td>
              <td safe>{destinationOf(withdrawal)}</td>
              <td>
                <code safe>{withdrawal.transactionId}</code>
              </td>
              {data.mayAct ? (
                <td>
                  <ActionForm action={`/backoffice/saques/${withdrawal.transactionId}/aprovar`} csrfToken={context.csrfToken} submit="Aprovar" />
                  <ActionForm action={`/backoffice/saques/${withdrawal.transactionId}/recusar`} csrfToken={context.csrfToken} submit="Recusar" danger />
                </td>
              ) : (
                ''
              )}
            </tr>
          ))}
        </DataTable>
      )}
    </Page>
  );
}

function destinationOf(withdrawal: QueuedWithdrawal): string {
  const key = withdrawal.pixKey ? `${withdrawal.pixKeyType ?? ''}: ${withdrawal.pixKey}` : '';
  const who = withdrawal.recipientId ? 'Destinatário' : 'Titular';
  return [who, withdrawal.holderName ?? '', key].filter(Boolean).join(' · ');
}

export type DisputesData = { cases: (InfractionView & { accountId: string })[]; evidence: Record<string, EvidenceView[]>; mayAct: boolean };

/** MED: the running cases, the nearest defense deadline first; open a case on a paid charge. */
export function DisputesPage(props: { context: PageContext; data: DisputesData; error?: string | undefined; notice?: string | undefined }) {
  const { data, context } = props;
  return (
    <Page context={context} title="MED" error={props.error} notice={props.notice}>
      <p>
        Casos do Mecanismo Especial de Devolução em andamento, o prazo de defesa mais próximo primeiro. O valor contestado fica bloqueado até o fim do caso.
      </p>
      {data.mayAct ? '' : <ReadOnly role={context.user?.role ?? ''} />}
      {data.cases.length === 0 ? (
        <p class="muted empty">
          Nenhum caso em andamento. Para contestar uma cobrança paga, use <a href="#abrir-caso">Abrir caso</a> abaixo com o id da cobrança.
        </p>
      ) : (
        <ul class="cases">
          {data.cases.map((infraction) => (
            <li>
              <article aria-labelledby={`med-${infraction.infractionId}`}>
                <h2 id={`med-${infraction.infractionId}`}>
                  <span safe>{`Caso ${infraction.infractionId.slice(0, 8)}… · `}</span>
                  <Money cents={infraction.amountCents} />
                </h2>
                <dl>
                  <dt>Conta</dt>
                  <dd>
                    <AccountLink accountId={infraction.accountId} />
                  </dd>
                  <dt>Cobrança</dt>
                  <dd>
                    <code safe>{infraction.transactionId}</code>
                  </dd>
                  <dt>Motivo</dt>
                  <dd>{infraction.reason === 'fraud' ? 'Fraude' : 'Falha operacional'}</dd>
                  <dt>Situação</dt>
                  <dd>
                    <Status status={infraction.status} of="infraction" />
                  </dd>
                  <dt>Aberto em</dt>
                  <dd safe>{formatDate(infraction.openedAt)}</dd>
                  <dt>Prazo de defesa</dt>
                  <dd safe>{formatDate(infraction.defenseDeadline)}</dd>
                  <dt>Defesa do lojista</dt>
                  <dd safe>{infraction.defense ?? '—'}</dd>
                </dl>
                <EvidenceList infractionId={infraction.infractionId} files={data.evidence[infraction.infractionId] ?? []} base="/backoffice/med" />
                {data.mayAct ? (
                  <>
                    {infraction.status === 'under_analysis' ? (
                      ''
                    ) : (
                      <ActionForm action={`/backoffice/med/${infraction.infractionId}/analise`} csrfToken={context.csrfToken} submit="Iniciar análise" />
                    )}
                    <ActionForm action={`/backoffice/med/${infraction.infractionId}/aceitar`} csrfToken={context.csrfToken} submit="Aceitar (devolver)" danger>
                      <label>
                        Valor a devolver (vazio = o do caso)
                        <input name="amount" inputmode="decimal" autocomplete="off" />
                      </label>
                    </ActionForm>
                    <ActionForm action={`/backoffice/med/${infraction.infractionId}/rejeitar`} csrfToken={context.csrfToken} submit="Rejeitar (liberar)" />
                  </>
                ) : (
                  ''
                )}
              </article>
            </li>
          ))}
        </ul>
      )}
      <h2 id="abrir-caso">Abrir caso</h2>
      {data.mayAct ? (
        <form class="stack" method="post" action="/backoffice/med">
          <input type="hidden" name="_csrf" value={context.csrfToken} />
          <label>
            Cobrança (transactionId)
            <input name="transactionId" required autocomplete="off" />
          </label>
          <label>
            Motivo
            <select name="reason">
              <option value="fraud">Fraude</option>
              <option value="operational_flaw">Falha operacional</option>
            </select>
          </label>
          <label>
            Valor contestado (vazio = o que resta da cobrança)
            <input name="amount" inputmode="decimal" autocomplete="off" />
          </label>
          <button type="submit">Abrir caso</button>
        </form>
      ) : (
        <ReadOnly role={context.user?.role ?? ''} />
      )}
    </Page>
  );
}
