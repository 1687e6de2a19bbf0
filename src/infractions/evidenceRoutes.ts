import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messages } from '../messages.js';
import { errorResponses } from '../platform/schemas.js';
import { acceptUploads, openUpload, type UploadRefusals } from '../platform/uploads.js';
import { attachmentDisposition, MAX_EVIDENCE_BYTES } from './evidenceFiles.js';
import { evidenceListResponse, evidenceParams, evidenceSchema, presentEvidence, requireEvidenceId, uploadEvidenceBody } from './evidenceSchemas.js';
import type { EvidenceService } from './evidenceService.js';
import { infractionIdParams, requireInfractionId } from './schemas.js';

export const EVIDENCE_UPLOAD_REFUSALS: UploadRefusals = { missing: messages.evidenceFileMissing, oneFile: messages.evidenceOneFile };

/** Evidence files of a MED case's defense (DESIGN.md §19): upload one at a time, list, download. */
export const evidenceRoutes =
  ({ evidence }: { evidence: EvidenceService }): FastifyPluginAsyncZod =>
  async (app) => {
    // Multipart bodies are parsed in this scope only.
    await acceptUploads(app, MAX_EVIDENCE_BYTES);
    const common = { tags: ['Disputas MED'], security: [{ apiKey: [] }] };

    app.post(
      '/infractions/:id/evidence',
      {
        schema: {
          ...common,
          summary: 'Anexa um arquivo de evidência à defesa de um caso MED',
          description:
            'multipart/form-data with one file in the field `file`: PDF, PNG or JPEG (told from its bytes), at most 10 MB, at most 5 files per case, while the case is open or in_defense and before its defenseDeadline. 413 when the file is larger than 10 MB, 415 when its bytes are not PDF, PNG or JPEG; nothing is kept after a refusal.',
          params: infractionIdParams,
          consumes: ['multipart/form-data'],
          body: uploadEvidenceBody,
          response: { 201: evidenceSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 422) },
        },
        // Nothing here is validated by schema: the body is read as a stream by the handler, which
        // refuses any other kind of body, and the path's id is checked by requireInfractionId.
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const infractionId = requireInfractionId(request.params.id);
        const upload = await openUpload(request, 'file', EVIDENCE_UPLOAD_REFUSALS);
        const row = await evidence.upload(request.merchant.account.id, infractionId, upload);
        return reply.code(201).send(presentEvidence(row));
      },
    );

    app.get(
      '/infractions/:id/evidence',
      {
        schema: {
          ...common,
          summary: 'Arquivos de evidência de um caso MED, do mais antigo ao mais recente',
          params: infractionIdParams,
          response: { 200: evidenceListResponse, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const rows = await evidence.list(request.merchant.account.id, requireInfractionId(request.params.id));
        return { evidence: rows.map(presentEvidence), count: rows.length };
      },
    );

    app.get(
      '/infractions/:id/evidence/:evidenceId',
      {
        schema: {
          ...common,
          summary: 'Baixa um arquivo de evidência',
          description: 'Answers the stored bytes as an attachment, with the detected Content-Type; errors as { error }.',
          params: evidenceParams,
          produces: ['application/pdf', 'image/png', 'image/jpeg'],
          response: errorResponses(400, 401, 403, 404),
        },
      },
      async (request, reply) => {
        const infractionId = requireInfractionId(request.params.id);
        const { evidence: row, bytes } = await evidence.download(infractionId, requireEvidenceId(request.params.evidenceId), request.merchant.account.id);
        return sendEvidence(reply, row, bytes);
      },
    );
  };

/** A stored file as a download: its bytes streamed, its detected type, never rendered by the browser. */
export function sendEvidence(reply: FastifyReply, row: { fileName: string; contentType: string; sizeBytes: number }, bytes: AsyncIterable<Buffer>) {
  return reply
    .type(row.contentType)
    .header('content-disposition', attachmentDisposition(row.fileName))
    .header('x-content-type-options', 'nosniff')
    .header('content-length', row.sizeBytes)
    .header('cache-control', 'private, no-store')
    .send(Readable.from(bytes));
}
