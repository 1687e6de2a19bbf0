import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_EVIDENCE_BYTES } from '../infractions/evidenceFiles.js';
import { EVIDENCE_UPLOAD_REFUSALS, sendEvidence } from '../infractions/evidenceRoutes.js';
import { acceptUploads, openUpload, type Upload } from '../platform/uploads.js';
import { presentEvidence, type EvidenceView } from '../infractions/evidenceSchemas.js';
import { defenseBody } from '../infractions/schemas.js';
import { presentInfraction } from '../infractions/presenter.js';
import { messages } from '../messages.js';
import { assertMayDo, mayDo } from '../users/roles.js';
import type { SessionUser } from '../users/service.js';
import { DisputesPage } from './disputeViews.js';
import { checked, field, idParam } from '../pages/forms.js';
import type { DashboardKit, DashboardServices } from './kit.js';

/** An evidence upload, once the fields before its file (the form's token) were read. */
const uploads = new WeakMap<FastifyRequest, Upload>();

/** Disputas (DESIGN.md §9–§10, §19): the account's MED cases, a defense while a case is open, and its evidence files. */
export const disputePages =
  (kit: DashboardKit, services: DashboardServices) =>
  async (app: FastifyInstance): Promise<void> => {
    const { infractions, evidence, clock } = services;
    const { asUser, send, contextOf, attempt, checkCsrf } = kit;

    const disputesView = async (
      reply: FastifyReply,
      user: SessionUser,
      extra: { error?: string; notice?: string; defense?: { infractionId: string; text: string } } = {},
    ) => {
      const { rows: cases } = await infractions.list(user.accountId, { limit: 50 });
      const files = await evidence.listOfCases(
        user.accountId,
        cases.map((row) => row.id),
      );
      const byCase: Record<string, EvidenceView[]> = {};
      for (const file of files) (byCase[file.infractionId] ??= []).push(presentEvidence(file));
      return (
        <DisputesPage
          context={contextOf(reply, user)}
          cases={cases.map(presentInfraction)}
          evidence={byCase}
          now={clock.now().getTime()}
          mayDefend={mayDo(user.role, 'disputes')}
          defense={extra.defense}
          error={extra.error}
          notice={extra.notice}
        />
      );
    };

    // Evidence files (DESIGN.md §19): uploaded one at a time by the roles that act on disputes
    // (multipart, parsed in this scope only), downloaded by every role.
    await app.register(async (scope) => {
      await acceptUploads(scope, MAX_EVIDENCE_BYTES);
      /** Reads the form up to its file, so that the CSRF check that follows finds the token sent before it. */
      const readFields = async (request: FastifyRequest) => {
        const upload = await openUpload(request, 'file', EVIDENCE_UPLOAD_REFUSALS);
        uploads.set(request, upload);
        request.body = upload.fields;
      };
      scope.post(
        '/disputas/:id/evidencias',
        { preHandler: [readFields, checkCsrf] },
        asUser(async (request, reply, user) => {
          const upload = uploads.get(request);
          const ok = await attempt(
            reply,
            async () => {
              assertMayDo(user, 'disputes');
              if (!upload) throw new Error('an evidence upload without its fields read');
              await evidence.upload(user.accountId, idParam(request.params, 'id', messages.infractionNotFound), upload);
            },
            (error) => disputesView(reply, user, { error }),
          );
          return ok ? send(reply, disputesView(reply, user, { notice: messages.evidenceUploaded })) : reply;
        }),
      );
    });

    app.get(
      '/disputas/:id/evidencias/:evidenceId',
      asUser(async (request, reply, user) => {
        const { evidence: file, bytes } = await evidence.download(
          idParam(request.params, 'id', messages.infractionNotFound),
          idParam(request.params, 'evidenceId', messages.evidenceNotFound),
          user.accountId,
        );
        return sendEvidence(reply, file, bytes);
      }),
    );

    app.get(
      '/disputas',
      asUser(async (_request, reply, user) => send(reply, disputesView(reply, user))),
    );

    app.post(
      '/disputas/:id/defesa',
      { preHandler: checkCsrf },
      asUser(async (request, reply, user) => {
        const infractionId = field(request.params, 'id');
        const text = field(request.body, 'text');
        const ok = await attempt(
          reply,
          async () => {
            assertMayDo(user, 'disputes');
            await infractions.defend(user.accountId, idParam(request.params, 'id', messages.infractionNotFound), checked(defenseBody, { text }).text);
          },
          (error) => disputesView(reply, user, { error, defense: { infractionId, text } }),
        );
        return ok ? send(reply, disputesView(reply, user, { notice: messages.defenseSent })) : reply;
      }),
    );
  };
