import type { TransactionView } from '../transactions/presenter.js';
import { WITHDRAWAL_STATUSES } from '../platform/schema.js';
import { FilterForm } from './chargeViews.js';
import {
  Alert,
  CodeField,
  CsrfField,
  formatDate,
  Layout,
  Money,
  Notice,
  NotOffered,
  Status,
  type PageContext,
  DataTable,
  DocumentFields,
  PixKeyFields,
  pixKeyTypeName,
} from '../pages/components.js';
import type { ListFilterForm } from '../pages/filters.js';
import { WithdrawalLink } from './withdrawalViews.js';

export type WithdrawalForm = { amount: string; recipientId: string; pixKeyType: string; pixKey: string; description: string };
type ApprovedRecipient = { recipientId: string; legalName: string; documentMasked: string; label: string | null };

export function WithdrawalsPage(props: {
  context: PageContext;
  withdrawals: TransactionView[];
  withdrawableCents: number;
  recipients: ApprovedRecipient[];
  filter: ListFilterForm;
  mayWithdraw: boolean;
  totpEnrolled: boolean;
  form?: WithdrawalForm | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}) {
  const form = props.form ?? { amount: '', recipientId: '', pixKeyType: 'cpf', pixKey: '', description: '' };
  const filtered = props.filter.status !== '' || props.filter.from !== '' || props.filter.to !== '';
  return (
    <Layout title="Saques" context={props.context}>
      <h1>Saques</h1>
      <p>
        Saldo sacável:{' '}
        <strong>
          <Money cents={props.withdrawableCents} />
        </strong>
      </p>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      {props.mayWithdraw && props.totpEnrolled ? (
        <form id="novo-saque" class="stack" method="post" action="/dashboard/saques">
          <CsrfField token={props.context.csrfToken} />
          <label>
            Valor (R$)
            <input name="amount" inputmode="decimal" required placeholder="100,00" value={form.amount} />
          </label>
          <label>
            Destino
            <select name="recipientId">
              <option value="" selected={form.recipientId === ''}>
                Conta do titular
              </option>
              {props.recipients.map((recipient) => (
                <option value={recipient.recipientId} selected={form.recipientId === recipient.recipientId} safe>
                  {`${recipient.label ?? recipient.legalName} · ${recipient.documentMasked}`}
                </option>
              ))}
            </select>
          </label>
          <PixKeyFields pixKey={form.pixKey} pixKeyType={form.pixKeyType} />
          <label>
            Descrição (opcional)
            <input name="description" maxlength="200" value={form.description} />
          </label>
          <CodeField />
          <button type="submit">Sacar</button>
          <p class="muted">
            Um código novo a cada saque. Conta do titular: chave do CPF/CNPJ da conta ou registrada em nome dele. Terceiros precisam estar aprovados em
            Destinatários.
          </p>
        </form>
      ) : (
        <NotOffered mayAct={props.mayWithdraw} needsTotp totpEnrolled={props.totpEnrolled} what="sacar" />
      )}
      <h2>{filtered ? 'Saques filtrados' : 'Últimos saques'}</h2>
      <FilterForm action="/dashboard/saques" filter={props.filter} statuses={WITHDRAWAL_STATUSES} of="withdrawal" />
      {props.withdrawals.length === 0 ? (
        <p class="muted empty">
          {filtered ? (
            <>
              Nenhum saque com estes filtros. <a href="/dashboard/saques">Ver todos os saques</a>.
            </>
          ) : props.mayWithdraw && props.totpEnrolled ? (
            <>
              Nenhum saque ainda. Com saldo sacável, saque pelo <a href="#novo-saque">formulário acima</a> — para a conta do titular ou para um destinatário
              aprovado em <a href="/dashboard/destinatarios">Destinatários</a>.
            </>
          ) : (
            <>Nenhum saque ainda. Os saques pedidos pela API (POST /v1/withdraw) ou pelo painel aparecem aqui.</>
          )}
        </p>
      ) : (
        <DataTable label="Saques" columns={['Criado em', 'Valor', 'Tarifa', 'Status', 'Favorecido', 'Detalhe']}>
          {props.withdrawals.map((withdrawal) => (
            <tr>
              <td safe>{formatDate(withdrawal.createdAt)}</td>
              <td>
                <Money cents={withdrawal.amountCents} />
              </td>
              <td>
                <Money cents={withdrawal.feeCents} />
              </td>
              <td>
                <Status status={withdrawal.status} of="withdrawal" />
              </td>
              <td safe>{withdrawal.beneficiary?.name ?? '—'}</td>
              <td>
                <WithdrawalLink withdrawal={withdrawal} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Layout>
  );
}

export type RecipientForm = { legalName: string; document: string; documentType: string; pixKeyType: string; pixKey: string; label: string };
type RecipientRow = {
  recipientId: string;
  status: string;
  legalName: string;
  documentMasked: string;
  pixKeyType: string;
  label: string | null;
  reason: string | null;
  updatedAt: number;
};

export function RecipientsPage(props: {
  context: PageContext;
  recipients: RecipientRow[];
  mayRegister: boolean;
  form?: RecipientForm | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}) {
  const form = props.form ?? { legalName: '', document: '', documentType: 'cpf', pixKeyType: 'cpf', pixKey: '', label: '' };
  return (
    <Layout title="Destinatários" context={props.context}>
      <h1>Destinatários</h1>
      <p>Terceiros para quem a conta pode sacar. Cada um passa pela análise da equipe do serviço antes de poder receber.</p>
      <Notice message={props.notice} />
      <Alert message={props.error} />
      {props.mayRegister ? (
        <details id="novo-destinatario" open={props.form !== undefined || props.recipients.length === 0}>
          <summary>Novo destinatário</summary>
          <form class="stack" method="post" action="/dashboard/destinatarios">
            <CsrfField token={props.context.csrfToken} />
            <label>
              Nome ou razão social
              <input name="legalName" required minlength="2" maxlength="120" value={form.legalName} />
            </label>
            <DocumentFields document={form.document} documentType={form.documentType} />
            <PixKeyFields pixKey={form.pixKey} pixKeyType={form.pixKeyType} />
            <label>
              Apelido (opcional)
              <input name="label" maxlength="80" value={form.label} />
            </label>
            <button type="submit">Enviar para análise</button>
          </form>
        </details>
      ) : (
        <NotOffered mayAct={false} what="cadastrar destinatários" />
      )}
      <h2>Cadastrados</h2>
      {props.recipients.length === 0 ? (
        <p class="muted empty">
          {props.mayRegister ? (
            <>
              Nenhum destinatário. Para sacar a um terceiro, cadastre-o pelo <a href="#novo-destinatario">formulário acima</a> e aguarde a aprovação da equipe
              do serviço.
            </>
          ) : (
            <>Nenhum destinatário. Quem tem o papel de dono ou financeiro cadastra os terceiros que podem receber saques.</>
          )}
        </p>
      ) : (
        <DataTable label="Destinatários cadastrados" columns={['Nome', 'Documento', 'Chave', 'Status', 'Atualizado em']}>
          {props.recipients.map((recipient) => (
            <tr>
              <td safe>{recipient.label ? `${recipient.label} (${recipient.legalName})` : recipient.legalName}</td>
              <td class="nowrap" safe>
                {recipient.documentMasked}
              </td>
              <td safe>{pixKeyTypeName(recipient.pixKeyType)}</td>
              <td>
                <Status status={recipient.status} />
                {recipient.reason ? <span class="muted" safe>{` — ${recipient.reason}`}</span> : ''}
              </td>
              <td safe>{formatDate(recipient.updatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </Layout>
  );
}
