import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFoundError } from '../errors.js';
import type { OperatorSession } from '../operators/service.js';
import { field } from '../pages/forms.js';
import { canonicalHistoryHref, HISTORY_PAGE_ROWS, historyFormOf, parseHistoryForm, type HistoryForm } from '../pages/history.js';
import { historyRows, type HistoryRow } from '../pages/historyViews.js';
import { maskAnyDocument } from '../pix/documents.js';
import type { BackofficeKit, BackofficeServices } from './kit.js';
import { OperatorTransactionsPage, type DocumentSearch, type OperatorListing } from './historyViews.js';

const PATH = '/backoffice/transacoes';

/**
 * Transações (DESIGN.md §15): every account's history for the service team, one page at a time.
 * The filters and the cursor are in the address; a search by a counterpart's CPF or CNPJ is posted
 * (with the form token), pages included, so no full document reaches an address or a request log.
 * Every operator role reads.
 */
export const historyPages =
  (kit: BackofficeKit, { transactions, reportTransactions, accounts }: BackofficeServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asOperator, send, contextOf, attempt, checkCsrf, redirect } = kit;

    /** The names of the accounts of a page's rows (a few distinct ones; each cached up to 30 s by the service). */
    const accountNamesOf = async (rows: HistoryRow[]): Promise<Map<string, string>> => {
      const ids = [...new Set(rows.map((row) => row.accountId).filter((id) => id !== undefined))];
      return new Map(await Promise.all(ids.map(async (id) => [id, (await accounts.cachedAccount(id)).account.name] as const)));
    };

    /** One page: a txid names one transaction (of any account); else the filters, of every account or of `conta`. */
    const listingOf = async (form: HistoryForm, typedDocument: string | undefined): Promise<{ listing: OperatorListing; document?: DocumentSearch }> => {
      const read = parseHistoryForm(form, { operator: true, document: typedDocument });
      const searched = read.query.document;
      const document = searched === undefined ? undefined : { value: searched, masked: maskAnyDocument(searched) };
      if (read.transactionId) {
        const row = await transactions.getForOperator(read.transactionId).catch((error: unknown) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        });
        const rows = row ? historyRows([row]) : [];
        return { listing: { rows, next: undefined, byTxid: true, accountNames: await accountNamesOf(rows) }, document };
      }
      // Lists read the replica when there is one (DATABASE_READ_URL); a txid is looked up on the primary, as an operator who just acted expects.
      const page = await reportTransactions.page(read.accountId, { ...read.query, limit: HISTORY_PAGE_ROWS });
      const rows = historyRows(page.rows);
      return { listing: { rows, next: page.hasMore ? page.rows.at(-1)?.id : undefined, byTxid: false, accountNames: await accountNamesOf(rows) }, document };
    };

    /** The page for these filters (and document); a refusal shows the filters as typed with the message and its status (400), no rows. */
    const transactionsPage = async (reply: FastifyReply, operator: OperatorSession, form: HistoryForm, typedDocument?: string) => {
      let found: Awaited<ReturnType<typeof listingOf>> | undefined;
      const ok = await attempt(
        reply,
        async () => (found = await listingOf(form, typedDocument)),
        (error) => (
          <OperatorTransactionsPage
            context={contextOf(reply, operator)}
            form={form}
            listing={undefined}
            searchingDocument={typedDocument !== undefined}
            error={error}
          />
        ),
      );
      if (!ok || !found) return reply;
      return send(
        reply,
        <OperatorTransactionsPage
          context={contextOf(reply, operator)}
          form={form}
          listing={found.listing}
          document={found.document}
          searchingDocument={typedDocument !== undefined}
        />,
      );
    };

    app.get(
      '/transacoes',
      asOperator(async (request, reply, operator) => {
        const form = historyFormOf(request.query);
        const canonical = canonicalHistoryHref(PATH, request.url, form);
        return canonical ? redirect(reply, canonical) : transactionsPage(reply, operator, form);
      }),
    );

    // A POST, not a GET: the document stays out of the address, the browser's history and the request logs.
    app.post(
      '/transacoes/documento',
      { preHandler: checkCsrf },
      asOperator(async (request, reply, operator) => transactionsPage(reply, operator, historyFormOf(request.body), field(request.body, 'documento'))),
    );
  };
