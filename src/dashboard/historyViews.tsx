import { formatBrl } from '../messages.js';
import { Alert, DataTable, formatDate, formatDay, Layout, Money, Status, type PageContext } from '../pages/components.js';
import { isFiltered, type HistoryForm } from '../pages/history.js';
import { WithdrawalLink } from './withdrawalViews.js';
import { EmptyHistory, HistoryFilters, HistoryPager, Reference, TRANSACTION_TYPE_NAMES, type HistoryRow } from '../pages/historyViews.js';

const PATH = '/dashboard/transacoes';

/** The export links: the period, type and status of the filters (not the search nor the cursor), in each format. */
function exportHref(form: HistoryForm, format: 'excel' | 'csv' | 'ofx'): string {
  const query = new URLSearchParams([['formato', format]]);
  for (const [name, value] of [
    ['de', form.from],
    ['ate', form.to],
    ['tipo', form.type],
    ['status', form.status],
  ] as const)
    if (value !== '') query.append(name, value);
  return `${PATH}/exportar?${query.toString()}`;
}

/** One page of the account's history: rows, and the cursor of the next page when there is one. */
export type TransactionsListing = { rows: HistoryRow[]; next: string | undefined };

/**
 * Transações (DESIGN.md §15): the filters, the exports, one page of 50 rows and the pager. With a
 * refusal (`error`), the filters as typed and the message, and no rows unless the list itself was
 * read (an export refused).
 */
export function TransactionsPage(props: { context: PageContext; form: HistoryForm; listing: TransactionsListing | undefined; error?: string | undefined }) {
  const { form, listing } = props;
  const filtered = isFiltered(form);
  return (
    <Layout title="Transações" context={props.context}>
      <h1>Transações</h1>
      <p>
        Cobranças e saques da conta, os mais recentes primeiro, 50 por página. Os saldos de cada dia fechado estão em <a href="/dashboard/extratos">Extratos</a>
        .
      </p>
      <Alert message={props.error} />
      <HistoryFilters action={PATH} form={form} />
      <section aria-labelledby="exportar">
        <h2 id="exportar">Exportar</h2>
        <p class="muted">Todas as transações do período (De e Até, no máximo 31 dias), com o tipo e o status escolhidos nos filtros; a busca não se aplica.</p>
        <ul class="exports">
          <li>
            <a href={exportHref(form, 'excel')}>Exportar CSV (Excel)</a>
          </li>
          <li>
            <a href={exportHref(form, 'csv')}>Exportar CSV</a>
          </li>
          <li>
            <a href={exportHref(form, 'ofx')}>Exportar OFX</a>
          </li>
        </ul>
      </section>
      <h2>{filtered ? 'Transações filtradas' : form.after === '' ? 'Últimas transações' : 'Transações anteriores'}</h2>
      {!listing ? (
        <p>
          <a href={PATH}>Ver todas as transações</a>
        </p>
      ) : listing.rows.length === 0 ? (
        <EmptyHistory path={PATH} form={form}>
          Nenhuma transação ainda. <a href="/dashboard/cobrancas">Crie uma cobrança</a> ou use a API (POST /v1/pix) e ela aparece aqui.
        </EmptyHistory>
      ) : (
        <>
          <DataTable label="Transações" columns={['Criada em', 'Tipo', 'Valor', 'Tarifa', 'Status', 'Referência', 'Detalhe']}>
            {listing.rows.map((row) => (
              <tr>
                <td safe>{formatDate(row.createdAt)}</td>
                <td safe>{TRANSACTION_TYPE_NAMES[row.type]}</td>
                <td>
                  <Money cents={row.amountCents} />
                </td>
                <td>
                  <Money cents={row.feeCents} />
                </td>
                <td>
                  <Status status={row.status} of={row.type === 'withdrawal' ? 'withdrawal' : 'charge'} />
                </td>
                <td>
                  <Reference row={row} />
                </td>
                <td>
                  {row.type === 'pix_in' ? (
                    <a
                      href={`/dashboard/cobrancas/${row.transactionId}`}
                      aria-label={`Ver a cobrança de ${formatBrl(row.amountCents)} criada em ${formatDate(row.createdAt)}`}
                    >
                      Ver
                    </a>
                  ) : (
                    <WithdrawalLink withdrawal={row} />
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
          <HistoryPager path={PATH} form={form} next={listing.next} />
        </>
      )}
    </Layout>
  );
}

/** A closed day, as the Extratos page lists it. */
export type StatementRow = { date: string; openingBalanceCents: number; closingBalanceCents: number; movementCount: number; digest: string };

/** Extratos (DESIGN.md §15): the latest closed days, each a file to download, and how their digests chain. */
export function StatementsPage(props: { context: PageContext; statements: StatementRow[] }) {
  return (
    <Layout title="Extratos" context={props.context}>
      <h1>Extratos</h1>
      <p>
        O extrato de um dia (horário de Brasília) traz o saldo inicial, cada movimento do dia — créditos, débitos, tarifas, devoluções, bloqueios e ajustes — e
        o saldo final; o saldo final de um dia é o inicial do seguinte. Um dia fica disponível depois da meia-noite e, fechado, nunca muda.
      </p>
      <h2>Como conferir que nada foi reescrito</h2>
      <p>
        Cada arquivo traz, no campo <code>previousDigest</code>, o SHA-256 do arquivo do dia anterior, e a coluna SHA-256 abaixo mostra o de cada dia. Se um dia
        fosse alterado, o SHA-256 dele mudaria e deixaria de bater com o <code>previousDigest</code> do dia seguinte: a corrente de dias se rompe. Para
        conferir, calcule o SHA-256 de cada arquivo baixado (por exemplo, <code>sha256sum extrato-2026-01-31.json</code>) e compare-o com o{' '}
        <code>previousDigest</code> do arquivo do dia seguinte.
      </p>
      <h2>Últimos 31 dias fechados</h2>
      {props.statements.length === 0 ? (
        <p class="muted empty">
          Nenhum dia fechado ainda: o extrato de hoje fica disponível depois da meia-noite (horário de Brasília). As transações de hoje já estão em{' '}
          <a href="/dashboard/transacoes">Transações</a>.
        </p>
      ) : (
        <DataTable label="Extratos" columns={['Dia', 'Saldo inicial', 'Saldo final', 'Movimentos', 'SHA-256', 'Arquivo']}>
          {props.statements.map((statement) => (
            <tr>
              <td safe>{formatDay(statement.date)}</td>
              <td>
                <Money cents={statement.openingBalanceCents} />
              </td>
              <td>
                <Money cents={statement.closingBalanceCents} />
              </td>
              <td safe>{String(statement.movementCount)}</td>
              <td>
                <code class="small digest" safe>
                  {statement.digest}
                </code>
              </td>
              <td>
                <a href={`/dashboard/extratos/${statement.date}`} aria-label={`Baixar o extrato de ${formatDay(statement.date)} (JSON)`}>
                  Baixar
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <p>
        <a href="/dashboard/transacoes">Voltar às transações</a>
      </p>
    </Layout>
  );
}
