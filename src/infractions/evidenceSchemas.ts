import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { messages } from '../messages.js';
import { isId } from '../platform/ids.js';
import type { EvidenceContentType, EvidenceRow } from '../platform/schema.js';

const EVIDENCE_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const satisfies readonly EvidenceContentType[];

export const evidenceSchema = z
  .object({
    evidenceId: z.string(),
    fileName: z.string().meta({ description: 'The name the file was sent with (its last path segment, control characters removed, at most 200 characters).' }),
    contentType: z.enum(EVIDENCE_TYPES).meta({ description: "Told from the file's own bytes, not from its name or declared type." }),
    sizeBytes: z.int(),
    createdAt: z.int().meta({ description: 'Unix milliseconds.' }),
  })
  .meta({ id: 'Evidence' });

export const evidenceListResponse = z.object({ evidence: z.array(evidenceSchema), count: z.int() });

export const evidenceParams = z.object({
  id: z.string().meta({ description: 'infractionId (UUID v7).' }),
  evidenceId: z.string().meta({ description: 'evidenceId (UUID v7).' }),
});

/** The upload's body as the document describes it; the route streams it (evidenceRoutes.ts), never through this schema. */
export const uploadEvidenceBody = z.object({
  file: z.string().meta({ format: 'binary', description: 'One PDF, PNG or JPEG file of at most 10 MB (10,485,760 bytes).' }),
});

export type EvidenceView = z.infer<typeof evidenceSchema>;

export const presentEvidence = (row: EvidenceRow): EvidenceView => ({
  evidenceId: row.id,
  fileName: row.fileName,
  contentType: row.contentType,
  sizeBytes: row.sizeBytes,
  createdAt: row.createdAt.getTime(),
});

/** An evidenceId from a path: a UUID v7, or 400 before any lookup. */
export function requireEvidenceId(id: string): string {
  if (!isId(id)) throw new InvalidRequestError(messages.evidenceIdInvalid);
  return id;
}
