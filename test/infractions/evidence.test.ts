import { PNG } from 'pngjs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentDisposition, evidenceFileName, evidenceTypeOf } from '../../src/infractions/evidenceFiles.js';
import { messages } from '../../src/messages.js';
import { paidCharge } from '../helpers/api.js';
import { startGateway, type Gateway, type Merchant, NO_CHARGE_FEES } from '../helpers/gateway.js';

/**
 * Evidence files of a MED case's defense (DESIGN.md §19): a real PDF and PNG uploaded, listed and
 * downloaded byte for byte; a renamed executable, an empty file and an 11 MB file refused with
 * nothing kept; the fifth accepted and the sixth refused; the case's state and deadline; another
 * merchant's case and files not found; malformed requests answered 400, never 5xx.
 */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(async () => {
  await gateway.close();
});

const DAY = 86_400_000;
const MB = 1024 * 1024;

/** A 4×3 PNG with real pixels, encoded by pngjs. */
function realPng(): Buffer {
  const png = new PNG({ width: 4, height: 3 });
  for (let index = 0; index < png.data.length; index++) png.data[index] = (index * 37) % 256;
  return PNG.sync.write(png);
}

/** A minimal one-page PDF with a line of text, its cross-reference table computed. */
function realPdf(text = 'Nota fiscal 123: produto entregue.'): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** `size` bytes that start as a PDF does (the size is then what decides). */
const pdfOfSize = (size: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(size - 9, 0x20)]);

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, ...new Array<number>(56).fill(0)]);
const MZ = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(126, 0x90)]);

type Part = { field?: string; bytes: Buffer; name: string; type?: string };

/** POST /v1/infractions/{id}/evidence with the given parts (a file in `file` by default) and fields. */
async function upload(merchant: Merchant, infractionId: string, files: Part[], fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append(file.field ?? 'file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
  const response = await fetch(`${gateway.url}/v1/infractions/${infractionId}/evidence`, {
    method: 'POST',
    headers: { authorization: `Bearer ${merchant.apiKey}` },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const uploadOne = (merchant: Merchant, infractionId: string, bytes: Buffer, name: string, type?: string) =>
  upload(merchant, infractionId, [{ bytes, name, ...(type ? { type } : {}) }]);

async function download(merchant: Merchant, infractionId: string, evidenceId: string) {
  const response = await fetch(`${gateway.url}/v1/infractions/${infractionId}/evidence/${evidenceId}`, {
    headers: { authorization: `Bearer ${merchant.apiKey}` },
  });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function caseOfNewMerchant() {
  const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
  const transactionId = await paidCharge(gateway, merchant);
  const opened = await gateway.call('POST', `/sandbox/v1/pix/${transactionId}/infraction`, { key: merchant.apiKey, body: { reason: 'fraud' } });
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  return { merchant, transactionId, infractionId: opened.body.infractionId };
}

/** Rows of the evidence tables for a case: metadata, and chunks of any of its files. */
async function storedRows(infractionId: string): Promise<{ files: number; chunks: number }> {
  const { rows } = await sql<{ files: number; chunks: number }>`
    SELECT (SELECT count(*) FROM infraction_evidence WHERE infraction_id = ${infractionId})::int8 AS files,
           (SELECT count(*) FROM infraction_evidence_chunks c WHERE NOT EXISTS (SELECT 1 FROM infraction_evidence e WHERE e.id = c.evidence_id))::int8
             + (SELECT count(*) FROM infraction_evidence_chunks c JOIN infraction_evidence e ON e.id = c.evidence_id WHERE e.infraction_id = ${infractionId})::int8 AS chunks`.execute(
    gateway.database.db,
  );
  const [row] = rows;
  if (!row) throw new Error('no count');
  return row;
}

describe('uploading, listing and downloading', () => {
  it('a real PDF and a real PNG are kept with the type of their bytes and come back byte for byte', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    const pdf = realPdf();
    const png = realPng();
    const before = gateway.clock.now().getTime();

    // The declared types are wrong on purpose: the bytes decide.
    const sentPdf = await uploadOne(merchant, infractionId, pdf, 'nota fiscal çã.pdf', 'application/octet-stream');
    expect(sentPdf).toEqual({
      status: 201,
      body: {
        evidenceId: expect.any(String),
        fileName: 'nota fiscal çã.pdf',
        contentType: 'application/pdf',
        sizeBytes: pdf.length,
        createdAt: expect.any(Number),
      },
    });
    expect(Number(sentPdf.body.createdAt)).toBeGreaterThanOrEqual(before);
    expect(Number(sentPdf.body.createdAt)).toBeLessThanOrEqual(gateway.clock.now().getTime());
    const sentPng = await uploadOne(merchant, infractionId, png, 'C:\\fotos\\entrega (final).png', 'image/jpeg');
    expect(sentPng).toMatchObject({ status: 201, body: { fileName: 'entrega (final).png', contentType: 'image/png', sizeBytes: png.length } });

    const listed = await gateway.call('GET', `/v1/infractions/${infractionId}/evidence`, { key: merchant.apiKey });
    expect(listed).toMatchObject({ status: 200, body: { evidence: [sentPdf.body, sentPng.body], count: 2 } });

    const pdfBack = await download(merchant, infractionId, String(sentPdf.body.evidenceId));
    expect(pdfBack.status).toBe(200);
    expect(pdfBack.bytes.equals(pdf)).toBe(true);
    expect(pdfBack.headers.get('content-type')).toBe('application/pdf');
    expect(pdfBack.headers.get('content-disposition')).toBe(`attachment; filename="nota fiscal __.pdf"; filename*=UTF-8''nota%20fiscal%20%C3%A7%C3%A3.pdf`);
    expect(pdfBack.headers.get('x-content-type-options')).toBe('nosniff');
    expect(pdfBack.headers.get('content-length')).toBe(String(pdf.length));

    const pngBack = await download(merchant, infractionId, String(sentPng.body.evidenceId));
    expect(pngBack.bytes.equals(png)).toBe(true);
    expect(pngBack.headers.get('content-type')).toBe('image/png');
    expect(pngBack.headers.get('content-disposition')).toBe(`attachment; filename="entrega (final).png"; filename*=UTF-8''entrega%20%28final%29.png`);
    // The PNG decodes as the image it was.
    expect(PNG.sync.read(pngBack.bytes)).toMatchObject({ width: 4, height: 3 });
  });

  it('a file of exactly 10 MB is kept in chunks and downloaded whole', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    const file = pdfOfSize(10 * MB);
    file.writeUInt32BE(0xdeadbeef, 5 * MB);
    const sent = await uploadOne(merchant, infractionId, file, 'grande.pdf');
    expect(sent).toMatchObject({ status: 201, body: { sizeBytes: 10 * MB, contentType: 'application/pdf' } });
    expect(await storedRows(infractionId)).toEqual({ files: 1, chunks: 40 });
    const back = await download(merchant, infractionId, String(sent.body.evidenceId));
    expect(back.bytes.length).toBe(10 * MB);
    expect(back.bytes.equals(file)).toBe(true);
  });

  it('the case takes evidence while open and after its defense, up to 5 files; the sixth is 422', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    for (let index = 1; index <= 2; index++) expect((await uploadOne(merchant, infractionId, realPng(), `foto-${index}.png`)).status).toBe(201);
    const defended = await gateway.call('POST', `/v1/infractions/${infractionId}/defense`, { key: merchant.apiKey, body: { text: 'Produto entregue.' } });
    expect(defended).toMatchObject({ status: 200, body: { status: 'in_defense' } });
    for (let index = 3; index <= 5; index++) expect((await uploadOne(merchant, infractionId, realPdf(), `doc-${index}.pdf`)).status).toBe(201);
    expect(await uploadOne(merchant, infractionId, realPdf(), 'sexto.pdf')).toEqual({ status: 422, body: { error: messages.evidenceLimitReached } });
    const listed = await gateway.call('GET', `/v1/infractions/${infractionId}/evidence`, { key: merchant.apiKey });
    expect(listed.body.count).toBe(5);
    expect(listed.body.evidence.map((file) => file.fileName)).toEqual(['foto-1.png', 'foto-2.png', 'doc-3.pdf', 'doc-4.pdf', 'doc-5.pdf']);
  });

  it('concurrent uploads to a case with 4 files: exactly one more is kept (the case is locked per upload)', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    for (let index = 1; index <= 4; index++) expect((await uploadOne(merchant, infractionId, realPdf(), `doc-${index}.pdf`)).status).toBe(201);
    const answers = await Promise.all([1, 2, 3].map((index) => uploadOne(merchant, infractionId, pdfOfSize(512 * 1024), `junto-${index}.pdf`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422, 422]);
    expect(await storedRows(infractionId)).toEqual({ files: 5, chunks: 4 + 2 });
  });

  it('an empty list for a case without files', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    expect(await gateway.call('GET', `/v1/infractions/${infractionId}/evidence`, { key: merchant.apiKey })).toMatchObject({
      status: 200,
      body: { evidence: [], count: 0 },
    });
  });
});

describe('refusals keep nothing', () => {
  it.each([
    ['an ELF executable named x.pdf', ELF, 'x.pdf', 'application/pdf'],
    ['a Windows executable named foto.png', MZ, 'foto.png', 'image/png'],
    ['a text file named nota.jpg', Buffer.from('só texto, não é imagem'), 'nota.jpg', 'image/jpeg'],
    ['an empty file', Buffer.alloc(0), 'vazio.pdf', 'application/pdf'],
    ['a PDF signature cut short', Buffer.from('%PDF'), 'curto.pdf', 'application/pdf'],
  ])('%s is 415', async (_name, bytes, name, type) => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    expect(await uploadOne(merchant, infractionId, bytes, name, type)).toEqual({ status: 415, body: { error: messages.evidenceTypeNotAccepted } });
    expect(await storedRows(infractionId)).toEqual({ files: 0, chunks: 0 });
  });

  it('an 11 MB file is 413 with no row left, and the case still takes a file', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    expect(await uploadOne(merchant, infractionId, pdfOfSize(11 * MB), 'grande.pdf', 'application/pdf')).toEqual({
      status: 413,
      body: { error: messages.evidenceTooLarge },
    });
    expect(await uploadOne(merchant, infractionId, pdfOfSize(10 * MB + 1), 'um-byte-a-mais.pdf')).toEqual({
      status: 413,
      body: { error: messages.evidenceTooLarge },
    });
    expect(await storedRows(infractionId)).toEqual({ files: 0, chunks: 0 });
    expect((await uploadOne(merchant, infractionId, realPdf(), 'certo.pdf')).status).toBe(201);
  });

  it('after the deadline, and once the case is in analysis or closed, the defense messages', async () => {
    const late = await caseOfNewMerchant();
    gateway.clock.advance(7 * DAY);
    expect(await uploadOne(late.merchant, late.infractionId, realPdf(), 'tarde.pdf')).toEqual({ status: 422, body: { error: messages.defenseDeadlinePassed } });
    await gateway.services.infractions.analyzeOverdue();
    expect(await uploadOne(late.merchant, late.infractionId, realPdf(), 'tarde.pdf')).toEqual({
      status: 422,
      body: { error: messages.infractionNoDefense('under_analysis') },
    });

    const closed = await caseOfNewMerchant();
    expect((await uploadOne(closed.merchant, closed.infractionId, realPdf(), 'antes.pdf')).status).toBe(201);
    const close = await gateway.call('POST', `/sandbox/v1/infractions/${closed.infractionId}/close`, {
      key: closed.merchant.apiKey,
      body: { outcome: 'rejected' },
    });
    expect(close.status).toBe(200);
    expect(await uploadOne(closed.merchant, closed.infractionId, realPdf(), 'depois.pdf')).toEqual({
      status: 422,
      body: { error: messages.infractionNoDefense('rejected') },
    });
    // What was sent before stays readable.
    expect((await gateway.call('GET', `/v1/infractions/${closed.infractionId}/evidence`, { key: closed.merchant.apiKey })).body.count).toBe(1);
  });

  it.each([
    ['no file', [], {}, messages.evidenceFileMissing],
    ['a field only', [], { file: 'texto' }, messages.evidenceFileMissing],
    ['the file in another field', [{ field: 'documento', bytes: realPdf(), name: 'a.pdf' }], {}, messages.evidenceFileMissing],
    [
      'two files',
      [
        { bytes: realPdf(), name: 'a.pdf' },
        { bytes: realPng(), name: 'b.png' },
      ],
      {},
      messages.evidenceOneFile,
    ],
  ])('%s is 400', async (_name, files: Part[], fields: Record<string, string>, error) => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    expect(await upload(merchant, infractionId, files, fields)).toEqual({ status: 400, body: { error } });
    expect(await storedRows(infractionId)).toEqual({ files: 0, chunks: 0 });
  });

  it('a body that is not multipart is 400, and a malformed one too', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    const path = `/v1/infractions/${infractionId}/evidence`;
    expect(await gateway.call('POST', path, { key: merchant.apiKey, body: { file: 'JVBERi0=' } })).toMatchObject({
      status: 400,
      body: { error: messages.evidenceFileMissing },
    });
    expect(await gateway.call('POST', path, { key: merchant.apiKey, body: {} })).toMatchObject({ status: 400, body: { error: messages.evidenceFileMissing } });
    const cut = await gateway.call('POST', path, {
      key: merchant.apiKey,
      headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
      rawBody: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 cortado',
    });
    expect(cut).toMatchObject({ status: 400, body: { error: messages.evidenceFileMissing } });
    const noBoundary = await gateway.call('POST', path, { key: merchant.apiKey, headers: { 'content-type': 'multipart/form-data' }, rawBody: 'x' });
    expect(noBoundary).toMatchObject({ status: 400, body: { error: messages.evidenceFileMissing } });
    expect(await storedRows(infractionId)).toEqual({ files: 0, chunks: 0 });
  });

  it('other routes still refuse a multipart body as before', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    const form = new FormData();
    form.append('text', 'Defesa');
    const response = await fetch(`${gateway.url}/v1/infractions/${infractionId}/defense`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}` },
      body: form,
    });
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 400, body: { error: messages.bodyNotJson } });
  });
});

describe('tenancy', () => {
  it("another merchant's case is 404 Disputa não encontrada; another's file through one's own case is 404 Evidência não encontrada", async () => {
    const owner = await caseOfNewMerchant();
    const sent = await uploadOne(owner.merchant, owner.infractionId, realPdf(), 'meu.pdf');
    const evidenceId = String(sent.body.evidenceId);
    const other = await caseOfNewMerchant();

    expect(await uploadOne(other.merchant, owner.infractionId, realPdf(), 'x.pdf')).toEqual({ status: 404, body: { error: messages.infractionNotFound } });
    expect(await gateway.call('GET', `/v1/infractions/${owner.infractionId}/evidence`, { key: other.merchant.apiKey })).toMatchObject({
      status: 404,
      body: { error: messages.infractionNotFound },
    });
    const direct = await download(other.merchant, owner.infractionId, evidenceId);
    expect(direct.status).toBe(404);
    expect(JSON.parse(direct.bytes.toString())).toEqual({ error: messages.infractionNotFound });
    const throughOwnCase = await download(other.merchant, other.infractionId, evidenceId);
    expect(throughOwnCase.status).toBe(404);
    expect(JSON.parse(throughOwnCase.bytes.toString())).toEqual({ error: messages.evidenceNotFound });
    expect(await storedRows(owner.infractionId)).toEqual({ files: 1, chunks: 1 });
  });

  it('malformed ids are 400', async () => {
    const { merchant, infractionId } = await caseOfNewMerchant();
    expect(await uploadOne(merchant, 'abc', realPdf(), 'a.pdf')).toEqual({ status: 400, body: { error: messages.infractionIdInvalid } });
    expect(await gateway.call('GET', `/v1/infractions/${infractionId}/evidence/abc`, { key: merchant.apiKey })).toMatchObject({
      status: 400,
      body: { error: messages.evidenceIdInvalid },
    });
  });
});

describe('file names and types (pure)', () => {
  it('tells the three types by their signatures only', () => {
    expect(evidenceTypeOf(realPdf())).toBe('application/pdf');
    expect(evidenceTypeOf(realPng())).toBe('image/png');
    expect(evidenceTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe('image/jpeg');
    expect(evidenceTypeOf(ELF)).toBeUndefined();
    expect(evidenceTypeOf(MZ)).toBeUndefined();
    expect(evidenceTypeOf(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined();
  });

  it('keeps a safe name and offers it in both Content-Disposition forms', () => {
    expect(evidenceFileName('../../etc/passwd', 'application/pdf')).toBe('passwd');
    expect(evidenceFileName('a\u0000b\r\n.pdf', 'application/pdf')).toBe('ab.pdf');
    expect(evidenceFileName('   ', 'image/png')).toBe('evidencia.png');
    expect(evidenceFileName('x'.repeat(300), 'image/jpeg')).toHaveLength(200);
    expect(attachmentDisposition('relatório "final"; 100%.pdf')).toBe(
      `attachment; filename="relat_rio _final_; 100_.pdf"; filename*=UTF-8''relat%C3%B3rio%20%22final%22%3B%20100%25.pdf`,
    );
  });
});
