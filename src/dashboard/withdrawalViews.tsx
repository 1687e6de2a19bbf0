import { formatBrl, messages } from '../messages.js';
import { maskDocument } from '../pix/documents.js';
import type { PixKeyType } from '../pix/pixKeys.js';
import type { Holder } from '../platform/schema.js';
import type { TransactionView } from '../transactions/presenter.js';
import type { WithdrawalFailure } from '../withdrawals/service.js';
import { formatDate, Layout, Money, pixKeyTypeName, Status, type PageContext } from '../pages/components.js';

/** Where a withdrawal went: its PIX key (a CPF or CNPJ key masked as the API masks documents) and whose it must be. */
export type WithdrawalDestination = { pixKey: string; pixKeyType: PixKeyType; holder: Holder | null; recipientId: string | null };

/** A PIX key to show: a CPF or CNPJ key masked as the API masks documents; an e-mail, phone or random key as it is. */
const shownPixKey = (key: string, type: PixKeyType): string => (type === 'cpf' || type === 'cnpj' ? maskDocument(type, key) : key);

/** A person or company with their document masked (`Loja Exemplo · CNPJ **.222.333/0001-**`). */
const holderText = (holder: Holder): string => `${holder.name} · ${holder.documentType.toUpperCase()} ${maskDocument(holder.documentType, holder.document)}`;

/** The link of a withdrawal in a list, named for screen readers by its amount and date. */
export const WithdrawalLink = (props: { withdrawal: Pick<TransactionView, 'transactionId' | 'amountCents' | 'createdAt'> }) => (
  <a
    href={`/dashboard/saques/${props.withdrawal.transactionId}`}
    aria-label={`Ver o saque de ${formatBrl(props.withdrawal.amountCents)} criado em ${formatDate(props.withdrawal.createdAt)}`}
  >
    Ver
  </a>
);

/** A withdrawal's page (DESIGN.md §24): its status, money, destination, network id, dates and why it failed. */
export function WithdrawalPage(props: {
  context: PageContext;
  withdrawal: TransactionView;
  destination: WithdrawalDestination;
  failure: WithdrawalFailure | null;
}) {
  const { withdrawal, destination } = props;
  const paidTo = withdrawal.beneficiary ?? destination.holder;
  return (
    <Layout title="Saque" context={props.context}>
      <h1>
        Saque de <Money cents={withdrawal.amountCents} />
      </h1>
      <dl>
        <dt>Status</dt>
        <dd>
          <Status status={withdrawal.status} of="withdrawal" />
        </dd>
        {props.failure ? (
          <>
            <dt>Motivo</dt>
            <dd>{messages.withdrawalFailure[props.failure]}</dd>
          </>
        ) : (
          ''
        )}
        <dt>Valor</dt>
        <dd>
          <Money cents={withdrawal.amountCents} />
        </dd>
        <dt>Tarifa</dt>
        <dd>
          <Money cents={withdrawal.feeCents} />
        </dd>
        <dt>{withdrawal.beneficiary ? 'Favorecido' : 'Titular esperado'}</dt>
        {paidTo ? <dd safe>{holderText(paidTo)}</dd> : <dd>—</dd>}
        <dt>Destino</dt>
        <dd>{destination.recipientId ? <a href="/dashboard/destinatarios">Destinatário cadastrado</a> : <span>Conta do titular</span>}</dd>
        <dt>Chave PIX</dt>
        <dd safe>{`${pixKeyTypeName(destination.pixKeyType)}: ${shownPixKey(destination.pixKey, destination.pixKeyType)}`}</dd>
        <dt>Criado em</dt>
        <dd safe>{formatDate(withdrawal.createdAt)}</dd>
        <dt>Pago em</dt>
        <dd safe>{withdrawal.paidAt === null ? '—' : formatDate(withdrawal.paidAt)}</dd>
        <dt>Referência externa</dt>
        <dd safe>{withdrawal.externalRef ?? '—'}</dd>
        <dt>EndToEndId</dt>
        <dd>{withdrawal.endToEndId ? <code safe>{withdrawal.endToEndId}</code> : '—'}</dd>
        <dt>Id</dt>
        <dd>
          <code safe>{withdrawal.transactionId}</code>
        </dd>
      </dl>
      <p>
        <a href="/dashboard/saques">Voltar aos saques</a>
      </p>
    </Layout>
  );
}
