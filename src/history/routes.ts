import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messages } from '../messages.js';
import type { HistoryService } from './service.js';
import { errorResponses } from '../platform/schemas.js';
import { EXPORT_MAX_DAYS, exportQuery, statementParams, statementSchema, type StatementBody } from './schemas.js';

/** Exports and daily statements (DESIGN.md §15). */
export const historyRoutes =
  ({ history }: { history: HistoryService }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/transactions/export',
      {
        schema: {
          tags: ['Transações'],
          summary: 'Exporta um período (até 31 dias) em CSV ou OFX, em streaming',
          description:
            'CSV: every transaction created in the period, newest first, one row each (RFC 4180, UTF-8 with BOM, CRLF; amounts in cents and in reais with a dot; times in America/Sao_Paulo and UTC). OFX 2.2: every movement of the balance in the period, oldest first, with the balance at its end. docs/history.md describes the columns. Errors as { error }: 400 (format, delimiter, period, filters), 401, 403.\n\n400 messages:\n' +
            [
              messages.exportFormatInvalid,
              messages.exportDelimiterInvalid,
              messages.createdFromInvalid,
              messages.createdToInvalid,
              messages.exportRangeRequired,
              messages.createdRangeInvalid,
              messages.exportRangeTooLarge(EXPORT_MAX_DAYS),
            ]
              .map((text) => `- \`${text}\``)
              .join('\n'),
          security: [{ apiKey: [] }],
          querystring: exportQuery,
          produces: ['text/csv', 'application/x-ofx'],
        },
      },
      async (request, reply) => {
        const file = history.exportFile(request.merchant.account.id, request.query);
        return reply
          .header('content-type', file.contentType)
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .header('cache-control', 'no-store')
          .send(file.body);
      },
    );

    app.get(
      '/statements/:date',
      {
        schema: {
          tags: ['Transações'],
          summary: 'Extrato de um dia fechado: saldo inicial, cada movimento, saldo final e o SHA-256 do dia anterior',
          description:
            'The body is served exactly as stored when the day closed (after midnight America/Sao_Paulo): its SHA-256 (also in the ETag) is the next day’s previousDigest. docs/history.md shows how to check the chain. Errors as { error }: 400 (date), 401, 403, 404 (a day not closed yet, or before the account existed).\n\n' +
            [messages.statementDateInvalid, messages.statementBeforeAccount('<AAAA-MM-DD>'), messages.statementNotClosed('<AAAA-MM-DD>')]
              .map((text) => `- \`${text}\``)
              .join('\n'),
          security: [{ apiKey: [] }],
          params: statementParams,
          produces: ['application/json'],
          response: { 200: statementSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        const statement = await history.statement(request.merchant.account.id, request.params.date);
        return (
          reply
            .header('content-type', 'application/json; charset=utf-8')
            .header('etag', `"${statement.digest}"`)
            .header('cache-control', 'private, max-age=86400, immutable')
            // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the stored text is sent byte for byte (Fastify serializes objects only, never a string); the 200 schema documents what it holds, and buildStatement writes that type
            .send(statement.body as unknown as StatementBody)
        );
      },
    );
  };
