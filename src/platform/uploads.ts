import multipart, { type MultipartFile, type Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError, InvalidRequestError } from '../errors.js';

/**
 * File uploads (multipart/form-data), for the routes registered in the scope that calls
 * `acceptUploads` only: other routes keep answering a multipart body as a body they do not take.
 * A file is read as a stream, never whole: the caller consumes its bytes as they arrive.
 */

/** What the sender is told when the request is not what an upload route takes. */
export type UploadRefusals = {
  /** Not multipart, malformed, or without a file in the expected field. */
  missing: string;
  /** A second file in the same request. */
  oneFile: string;
};

/** One uploaded file: the form's fields sent before it, its name as sent, and its bytes then the rest of the request. */
export type Upload = { fields: Record<string, string>; fileName: string; bytes: AsyncIterable<Uint8Array> };

/**
 * Parses multipart bodies in `scope`: one file, a few short fields (a form's token), the file cut
 * one byte past `maxFileBytes` (so the reader sees it is too large and can say so). A request
 * answered before its body was read (a refusal) has the rest read and dropped, so that the
 * connection stays usable and the sender gets the answer.
 */
export async function acceptUploads(scope: FastifyInstance, maxFileBytes: number): Promise<void> {
  await scope.register(multipart, {
    limits: { files: 1, fields: 5, parts: 6, fieldSize: 1024, fieldNameSize: 100, headerPairs: 50, fileSize: maxFileBytes + 1 },
    throwFileSizeLimit: false,
  });
  scope.addHook('onSend', async (request) => {
    if (request.isMultipart() && !request.raw.readableEnded) {
      request.raw.unpipe();
      request.raw.resume();
    }
  });
}

/**
 * Reads `request` up to its file in the field `fileField`: the fields before it are answered
 * with it. Its `bytes` yield the file as it arrives, then read the rest of the request (fields
 * after it ignored, another file refused); a malformed body refuses (400) while being read.
 */
export async function openUpload(request: FastifyRequest, fileField: string, refusals: UploadRefusals): Promise<Upload> {
  if (!request.isMultipart()) throw new InvalidRequestError(refusals.missing);
  const parts = request.parts();
  const fields: Record<string, string> = {};
  for (;;) {
    const part = await nextPart(parts, refusals);
    if (!part) throw new InvalidRequestError(refusals.missing);
    if (part.type === 'field') {
      if (typeof part.value === 'string') fields[part.fieldname] = part.value;
      continue;
    }
    if (part.fieldname !== fileField) throw new InvalidRequestError(refusals.missing);
    return { fields, fileName: part.filename, bytes: bytesThenRest(part, parts, refusals) };
  }
}

async function* bytesThenRest(file: MultipartFile, parts: AsyncIterableIterator<Multipart>, refusals: UploadRefusals): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of file.file) {
      // A file stream yields Buffers.
      if (chunk instanceof Uint8Array) yield chunk;
    }
  } catch (error) {
    throw asRefusal(error, refusals);
  }
  for (let part = await nextPart(parts, refusals); part; part = await nextPart(parts, refusals)) {
    if (part.type === 'file') throw new InvalidRequestError(refusals.oneFile);
  }
}

/** The next part, or undefined at the end; the parser's errors (malformed body, limits) as refusals. */
async function nextPart(parts: AsyncIterableIterator<Multipart>, refusals: UploadRefusals): Promise<Multipart | undefined> {
  try {
    const next = await parts.next();
    return next.done ? undefined : next.value;
  } catch (error) {
    throw asRefusal(error, refusals);
  }
}

/** What the multipart parser threw, as the sender's fault: a second file, or a body that is not the form expected. */
function asRefusal(error: unknown, refusals: UploadRefusals): DomainError {
  if (error instanceof DomainError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return new InvalidRequestError(code === 'FST_FILES_LIMIT' ? refusals.oneFile : refusals.missing);
}
