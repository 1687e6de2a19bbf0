import type { EvidenceContentType, InfractionStatus } from '../platform/schema.js';

// What an evidence file is, judged by its own bytes (DESIGN.md §19): the name and the type the
// sender declares are not trusted. Pure functions, no I/O.

/** At most this many files per case. */
export const MAX_EVIDENCE_FILES = 5;
/** At most this many bytes per file (10 MB). */
export const MAX_EVIDENCE_BYTES = 10 * 1024 * 1024;
/** A case takes evidence while its defense may be sent or has been: before the analysis… */
export const EVIDENCE_STATUSES: readonly InfractionStatus[] = ['open', 'in_defense'];

/** …and before its defense deadline, up to MAX_EVIDENCE_FILES (what the pages offer; the service decides the same). */
export const takesEvidence = (dispute: { status: InfractionStatus; defenseDeadline: number }, files: number, now: number): boolean =>
  EVIDENCE_STATUSES.includes(dispute.status) && now < dispute.defenseDeadline && files < MAX_EVIDENCE_FILES;

/** The bytes a file's type is told from (PNG's signature is the longest). */
export const SIGNATURE_BYTES = 8;

const SIGNATURES: readonly { contentType: EvidenceContentType; bytes: readonly number[] }[] = [
  { contentType: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] }, // %PDF-
  { contentType: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] }, // \x89PNG\r\n\x1a\n
  { contentType: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] }, // SOI and the first marker
];

/** The accepted type whose signature `head` (a file's first bytes) starts with, or undefined. */
export function evidenceTypeOf(head: Uint8Array): EvidenceContentType | undefined {
  return SIGNATURES.find(({ bytes }) => head.length >= bytes.length && bytes.every((byte, index) => head[index] === byte))?.contentType;
}

const EXTENSIONS: Record<EvidenceContentType, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' };
const MAX_NAME_CHARACTERS = 200;
// eslint-disable-next-line no-control-regex -- control characters are what is removed
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * The name an evidence file is kept and offered under: the sender's last path segment, without
 * control characters, in NFC and well-formed (text PostgreSQL stores), cut to 200 characters; a
 * name left empty becomes `evidencia.<ext>` of the detected type.
 */
export function evidenceFileName(sent: string, contentType: EvidenceContentType): string {
  const lastSegment = sent.split(/[/\\]/).at(-1) ?? '';
  const cleaned = lastSegment.toWellFormed().normalize('NFC').replace(CONTROL_CHARACTERS, '').trim();
  const name = Array.from(cleaned).slice(0, MAX_NAME_CHARACTERS).join('').trim();
  return name === '' || name === '.' || name === '..' ? `evidencia.${EXTENSIONS[contentType]}` : name;
}

/**
 * `Content-Disposition` of a download: `attachment` with an ASCII `filename` (other characters,
 * quotes and backslashes as `_`) and the exact name as RFC 5987's `filename*` (UTF-8, percent-encoded).
 */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
