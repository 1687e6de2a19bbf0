import type { FastifyInstance, FastifyReply } from 'fastify';
import { DomainError, httpStatusOf, InvalidRequestError } from '../errors.js';
import type { ExportRequest } from '../history/service.js';
import { messages } from '../messages.js';
import { field } from '../pages/forms.js';
import { attachment, canonicalHistoryHref, HISTORY_PAGE_ROWS, historyFormOf, parseHistoryForm, type HistoryForm } from '../pages/history.js';
import { historyRows } from '../pages/historyViews.js';
import type { SessionUser } from '../users/service.js';
import type { DashboardKit, DashboardServices } from './kit.js';
import { StatementsPage, TransactionsPage, type TransactionsListing } from './historyViews.js';

const PATH = '/dashboard/transacoes';

/** The page's export links (`?formato=`): CSV for Excel in Portuguese (semicolons), CSV as RFC 4180 (commas), OFX. */
const EXPORT_FORMATS: Record<string, Pick<ExportRequest, 'format' | 'delimiter'>> = {
  excel: { format: 'csv', delimiter: 'semicolon' },
  csv: { format: 'csv', delimiter: 'comma' },
  ofx: { format: 'ofx' },
};

/** Closed days the Extratos page lists: a month's. */
const STATEMENT_DAYS = 31;

/**
 * Transações and Extratos (DESIGN.md §15): the account's history one page at a time, with its
 * filters and cursor in the address; exports and daily statements as downloads. Every role reads.
 */
export const historyPages =
  (kit: DashboardKit, { transactions, history }: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { asUser, send, contextOf, attempt, redirect } = kit;

    /** One page of the account's history: a bad filter or cursor throws its catalog message. */
    const listingOf = async (user: SessionUser, form: HistoryForm): Promise<TransactionsListing> => {
      const { query } = parseHistoryForm(form, { operator: false });
      const { rows, hasMore } = await transactions.page(user.accountId, { ...query, limit: HISTORY_PAGE_ROWS });
      return { rows: historyRows(rows), next: hasMore ? rows.at(-1)?.id : undefined };
    };

    /**
     * The Transações page for these filters. A refused filter shows the filters as typed with the
     * message and its status (400), no rows; a refused export (`refused`) shows the list with the export's message and status.
     */
    const transactionsPage = async (reply: FastifyReply, user: SessionUser, form: HistoryForm, refused?: DomainError) => {
      let listing: TransactionsListing | undefined;
      const ok = await attempt(
        reply,
        async () => (listing = await listingOf(user, form)),
        (error) => <TransactionsPage context={contextOf(reply, user)} form={form} listing={undefined} error={refused?.message ?? error} />,
      );
      if (!ok) return reply;
      return send(
        reply,
        <TransactionsPage context={contextOf(reply, user)} form={form} listing={listing} error={refused?.message} />,
        refused ? httpStatusOf(refused) : 200,
      );
    };

    app.get(
      '/transacoes',
      asUser(async (request, reply, user) => {
        const form = historyFormOf(request.query);
        const canonical = canonicalHistoryHref(PATH, request.url, form);
        return canonical ? redirect(reply, canonical) : transactionsPage(reply, user, form);
      }),
    );

    // The file is produced as it is sent (constant memory); the service checks the period's length (at most 31 days).
    app.get(
      '/transacoes/exportar',
      asUser(async (request, reply, user) => {
        const form = historyFormOf(request.query);
        try {
          const format = EXPORT_FORMATS[field(request.query, 'formato')];
          if (!format) throw new InvalidRequestError(messages.exportFormatInvalid);
          // The API's message names its parameters (createdFrom, createdTo); the page's names the form's fields.
          if (form.from === '' || form.to === '') throw new InvalidRequestError(messages.exportPeriodRequired);
          const { query } = parseHistoryForm({ ...form, search: '', after: '' }, { operator: false });
          const file = history.exportFile(user.accountId, {
            ...format,
            createdFrom: query.createdFrom,
            createdTo: query.createdTo,
            type: query.type,
            status: query.status,
          });
          return reply.type(file.contentType).header('content-disposition', attachment(file.filename)).send(file.body);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          return transactionsPage(reply, user, { ...form, after: '' }, error);
        }
      }),
    );

    app.get(
      '/extratos',
      asUser(async (_request, reply, user) => {
        return send(reply, <StatementsPage context={contextOf(reply, user)} statements={await history.recentStatements(user.accountId, STATEMENT_DAYS)} />);
      }),
    );

    // The stored text itself, byte for byte: its SHA-256 is the digest the next day's statement carries.
    app.get(
      '/extratos/:date',
      asUser(async (request, reply, user) => {
        const file = await history.statement(user.accountId, field(request.params, 'date'));
        return reply
          .type('application/json; charset=utf-8')
          .header('content-disposition', attachment(`extrato-${file.date}.json`))
          .send(file.body);
      }),
    );
  };
