import { CsrfField, DataTable, formatDate, Money, Status, type PageContext } from '../pages/components.js';
import { isFiltered, type HistoryForm } from '../pages/history.js';
import {
  EmptyHistory,
  HiddenHistoryFields,
  HistoryFilters,
  HistoryPager,
  PostedHistoryPager,
  Reference,
  TRANSACTION_TYPE_NAMES,
  type HistoryRow,
} from '../pages/historyViews.js';
import { AccountLink, Page } from './views.js';

const PATH = '/backoffice/transacoes';
const DOCUMENT_PATH = '/backoffice/transacoes/documento';

/** One page of every account's history (or of the search), and the cursor of the next page when there is one. */
export type OperatorListing = { rows: HistoryRow[]; next: string | undefined; byTxid: boolean; accountNames: ReadonlyMap<string, string> };

/** A document search: the digits (posted again by the pager, never in an address) and how the page shows them (masked). */
export type DocumentSearch = { value: string; masked: string };

/**
 * Transações of the back-office (DESIGN.md §15): every account's history with the dashboard's
 * filters, the account and a txid; a search by the counterpart's document, posted. With a refusal
 * (`error`), the filters as typed and the message, no rows.
 */
export function OperatorTransactionsPage(props: {
  context: PageContext;
  form: HistoryForm;
  listing: OperatorListing | undefined;
  document?: DocumentSearch | undefined;
  /** The page answers a document search (its section stays open, a refused one included). */
  searchingDocument?: boolean;
  error?: string | undefined;
}) {
  const { form, listing, document, context } = props;
  const filtered = isFiltered(form) || document !== undefined;
  return (
    <Page context={context} title="Transações" error={props.error}>
      <p>Cobranças e saques de todas as contas, os mais recentes primeiro, 50 por página.</p>
      <HistoryFilters action={PATH} form={form} operator />
      <details id="documento" open={props.searchingDocument === true}>
        <summary>Buscar pelo documento da contraparte (CPF ou CNPJ)</summary>
        <form class="filters" method="post" action={DOCUMENT_PATH} aria-label="Buscar por documento">
          <CsrfField token={context.csrfToken} />
          <HiddenHistoryFields form={{ ...form, after: '' }} />
          <label>
            Documento (CPF ou CNPJ)
            <input name="documento" required maxlength="18" autocomplete="off" autocapitalize="characters" spellcheck="false" />
          </label>
          <button type="submit">Buscar por documento</button>
        </form>
        <p class="muted">
          Quem pagou a cobrança, quem recebeu o saque ou o titular esperado; com os filtros aplicados acima. O documento vai no corpo do formulário, nunca no
          endereço da página.
        </p>
      </details>
      <h2>
        {document ? (
          <>
            Contraparte <span safe>{document.masked}</span>
          </>
        ) : filtered ? (
          'Transações filtradas'
        ) : form.after === '' ? (
          'Últimas transações'
        ) : (
          'Transações anteriores'
        )}
      </h2>
      {listing?.byTxid ? <p class="muted">Busca por txid: a transação desse id, sem os outros filtros.</p> : ''}
      {!listing ? (
        <p>
          <a href={PATH}>Ver todas as transações</a>
        </p>
      ) : listing.rows.length === 0 ? (
        <EmptyHistory path={PATH} form={form}>
          Nenhuma transação ainda. As cobranças e os saques das contas aparecem aqui; as contas estão em <a href="/backoffice/contas">Contas</a>.
        </EmptyHistory>
      ) : (
        <>
          <DataTable label="Transações" columns={['Criada em', 'Conta', 'Tipo', 'Valor', 'Status', 'Contraparte', 'Referência', 'Id']}>
            {listing.rows.map((row) => (
              <tr>
                <td safe>{formatDate(row.createdAt)}</td>
                <td>{row.accountId ? <AccountLink accountId={row.accountId} name={listing.accountNames.get(row.accountId)} /> : '—'}</td>
                <td safe>{TRANSACTION_TYPE_NAMES[row.type]}</td>
                <td>
                  <Money cents={row.amountCents} />
                </td>
                <td>
                  <Status status={row.status} of={row.type === 'withdrawal' ? 'withdrawal' : 'charge'} />
                </td>
                <td>
                  {row.counterpart ? (
                    <>
                      <span safe>{row.counterpart.name}</span>
                      <br />
                      <span class="muted nowrap" safe>
                        {row.counterpart.documentMasked}
                      </span>
                    </>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  <Reference row={row} />
                </td>
                <td>
                  <code class="small" safe>
                    {row.transactionId}
                  </code>
                </td>
              </tr>
            ))}
          </DataTable>
          {document ? (
            <PostedHistoryPager action={DOCUMENT_PATH} csrfToken={context.csrfToken} form={form} hidden={{ documento: document.value }} next={listing.next} />
          ) : (
            <HistoryPager path={PATH} form={form} next={listing.next} />
          )}
        </>
      )}
    </Page>
  );
}
