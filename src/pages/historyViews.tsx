import type { Children } from '@kitajs/html';
import { maskAnyDocument } from '../pix/documents.js';
import type { Party, TransactionStatus, TransactionType } from '../platform/schema.js';
import type { PresentedRow } from '../transactions/presenter.js';
import { CsrfField, statusName } from './components.js';
import { HISTORY_STATUSES, historyFields, historyHref, isFiltered, type HistoryForm } from './history.js';

// The parts the history pages of both sites share (DESIGN.md §15): the filters, one page's rows, the pager.

/** One row of a history page, as both sites show it. */
export type HistoryRow = {
  transactionId: string;
  /** The back-office's rows name their account. */
  accountId: string | undefined;
  type: TransactionType;
  status: TransactionStatus;
  amountCents: number;
  feeCents: number;
  createdAt: number;
  externalRef: string | null;
  endToEndId: string | null;
  /** Who paid (a charge) or received (a withdrawal), once settled; the document masked. */
  counterpart: { name: string; documentMasked: string } | null;
};

/** Rows as the service reads them (the operators' carry their account), for a page. */
export function historyRows(rows: readonly PresentedRow[]): HistoryRow[] {
  return rows.map((row) => {
    const party: Party | null = row.payer ?? row.beneficiary;
    const accountId: unknown = Reflect.get(row, 'accountId');
    return {
      transactionId: row.id,
      accountId: typeof accountId === 'string' ? accountId : undefined,
      type: row.type,
      status: row.status,
      amountCents: row.amountCents,
      feeCents: row.feeCents,
      createdAt: row.createdAt.getTime(),
      externalRef: row.externalRef,
      endToEndId: row.endToEndId,
      counterpart: party ? { name: party.name, documentMasked: maskAnyDocument(party.document) } : null,
    };
  });
}

export const TRANSACTION_TYPE_NAMES: Record<TransactionType, string> = { pix_in: 'Cobrança', withdrawal: 'Saque' };

/** A row's references: the merchant's externalRef and the network's end-to-end id (on one line: the column is never narrower), each when it has one. */
export function Reference(props: { row: Pick<HistoryRow, 'externalRef' | 'endToEndId'> }) {
  const { externalRef, endToEndId } = props.row;
  if (externalRef === null && endToEndId === null) return '—';
  return (
    <>
      {externalRef === null ? (
        ''
      ) : (
        <span class="wrap-anywhere" safe>
          {externalRef}
        </span>
      )}
      {externalRef !== null && endToEndId !== null ? <br /> : ''}
      {endToEndId === null ? (
        ''
      ) : (
        <code class="small nowrap" safe>
          {endToEndId}
        </code>
      )}
    </>
  );
}

/** A status of either type: both names where the types name it differently (Paga / Pago). */
function eitherStatusName(status: TransactionStatus): string {
  const charge = statusName(status, 'charge');
  const withdrawal = statusName(status, 'withdrawal');
  return charge === withdrawal ? charge : `${charge} / ${withdrawal}`;
}

/**
 * The filters (GET, so a filtered page is a link): a period of days, the type, the status, the
 * search and, in the back-office, the account. The cursor is left out: filtering starts again
 * from the most recent.
 */
export function HistoryFilters(props: { action: string; form: HistoryForm; operator?: boolean }) {
  const { form } = props;
  return (
    <form class="filters" method="get" action={props.action} role="search" aria-label="Filtrar transações">
      <label>
        De
        <input type="date" name="de" value={form.from} />
      </label>
      <label>
        Até
        <input type="date" name="ate" value={form.to} />
      </label>
      <label>
        Tipo
        <select name="tipo">
          <option value="">Todos</option>
          {(['pix_in', 'withdrawal'] as const).map((type) => (
            <option value={type} selected={form.type === type} safe>
              {TRANSACTION_TYPE_NAMES[type]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Status
        <select name="status">
          <option value="">Todos</option>
          {HISTORY_STATUSES.map((status) => (
            <option value={status} selected={form.status === status} safe>
              {eitherStatusName(status)}
            </option>
          ))}
        </select>
      </label>
      {props.operator ? (
        <label>
          Conta (id)
          <input name="conta" maxlength="36" autocomplete="off" spellcheck="false" value={form.account} />
        </label>
      ) : (
        ''
      )}
      <label>
        {props.operator ? 'Busca (externalRef, endToEndId ou txid)' : 'Busca (externalRef ou endToEndId)'}
        <input type="search" name="busca" maxlength="100" autocomplete="off" spellcheck="false" value={form.search} />
      </label>
      <button type="submit">Filtrar</button>
    </form>
  );
}

/**
 * What an empty page says: with filters or a cursor, that nothing matches and the way back to the
 * whole list; otherwise the site's own next step (the children).
 */
export function EmptyHistory(props: { path: string; form: HistoryForm; children: Children }) {
  return (
    <p class="muted empty">
      {isFiltered(props.form) || props.form.after !== '' ? (
        <>
          Nenhuma transação com estes filtros. <a href={props.path}>Ver todas as transações</a>.
        </>
      ) : (
        props.children
      )}
    </p>
  );
}

/**
 * The links to the most recent page and to the next one, each with every filter in its address:
 * the back button returns to the page before. There is no "previous page" link: pages are read
 * after a cursor, newest first, and the browser's history already holds the way back.
 */
export function HistoryPager(props: { path: string; form: HistoryForm; next: string | undefined }) {
  const { form } = props;
  if (form.after === '' && !props.next) return '';
  return (
    <nav class="pager" aria-label="Páginas">
      {form.after === '' ? '' : <a href={historyHref(props.path, { ...form, after: '' })}>Mais recentes</a>}
      {props.next ? (
        <a href={historyHref(props.path, { ...form, after: props.next })} rel="next">
          Próxima página
        </a>
      ) : (
        ''
      )}
    </nav>
  );
}

/** The filters as hidden fields of a posted form (the back-office's document search: nothing in the address). */
export const HiddenHistoryFields = (props: { form: HistoryForm }) => (
  <>
    {historyFields(props.form).map(([name, value]) => (
      <input type="hidden" name={name} value={value} />
    ))}
  </>
);

/** The pager of a posted search: the same two steps as forms that post the search again (the document in a hidden field), with the cursor. */
export function PostedHistoryPager(props: { action: string; csrfToken: string; form: HistoryForm; hidden: Record<string, string>; next: string | undefined }) {
  const { form } = props;
  if (form.after === '' && !props.next) return '';
  const step = (after: string, label: string) => (
    <form class="inline" method="post" action={props.action}>
      <CsrfField token={props.csrfToken} />
      <HiddenHistoryFields form={{ ...form, after }} />
      {Object.entries(props.hidden).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class="link" safe>
        {label}
      </button>
    </form>
  );
  return (
    <nav class="pager" aria-label="Páginas">
      {form.after === '' ? '' : step('', 'Mais recentes')}
      {props.next ? step(props.next, 'Próxima página') : ''}
    </nav>
  );
}
