import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PixGatewayError } from '../../packages/sdk/src/index.js';
import { messages } from '../../src/messages.js';
import { paidCharge } from '../helpers/api.js';
import { startGateway, type Gateway, NO_CHARGE_FEES } from '../helpers/gateway.js';
import { clientFor } from './helpers.js';

/** The SDK's evidence methods (docs/sdk.md): upload from bytes and from a Blob, list, download, and the gateway's refusals as PixGatewayError. */
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ SANDBOX_SETTLE_MS: 'manual' });
});
afterAll(async () => {
  await gateway.close();
});

const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');

async function sdkWithCase() {
  const merchant = await gateway.createMerchant(NO_CHARGE_FEES);
  const pix = clientFor(gateway, merchant);
  const transactionId = await paidCharge(gateway, merchant);
  const opened = await pix.sandbox.openInfraction(transactionId, { reason: 'fraud' });
  return { pix, infractionId: opened.infractionId };
}

async function refusal(call: Promise<unknown>): Promise<PixGatewayError> {
  const error: unknown = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof PixGatewayError)) throw new Error(`expected a PixGatewayError, got ${String(error)}`);
  return error;
}

describe('evidence through the SDK', () => {
  it('uploads a PDF from bytes and a PNG from a Blob, lists them and downloads them with their type and name', async () => {
    const { pix, infractionId } = await sdkWithCase();
    const png = new PNG({ width: 3, height: 3 });
    png.data.fill(90);
    const pngBytes = PNG.sync.write(png);

    const pdf = await pix.infractions.uploadEvidence(infractionId, { file: PDF, fileName: 'recibo nº 7.pdf' });
    expect(pdf).toMatchObject({ fileName: 'recibo nº 7.pdf', contentType: 'application/pdf', sizeBytes: PDF.length });
    const image = await pix.infractions.uploadEvidence(infractionId, { file: new Blob([pngBytes]), fileName: 'tela.png' });
    expect(image).toMatchObject({ fileName: 'tela.png', contentType: 'image/png', sizeBytes: pngBytes.length });

    expect(await pix.infractions.listEvidence(infractionId)).toEqual({ evidence: [pdf, image], count: 2 });
    const back = await pix.infractions.downloadEvidence(infractionId, pdf.evidenceId);
    expect(back.contentType).toBe('application/pdf');
    expect(back.fileName).toBe('recibo nº 7.pdf');
    expect(Buffer.from(back.bytes).equals(Buffer.from(PDF))).toBe(true);
    expect(Buffer.from((await pix.infractions.downloadEvidence(infractionId, image.evidenceId)).bytes).equals(pngBytes)).toBe(true);
  });

  it('the refusals are PixGatewayErrors with the status and the Portuguese message, an 11 MB file included', async () => {
    const { pix, infractionId } = await sdkWithCase();
    const executable = await refusal(
      pix.infractions.uploadEvidence(infractionId, { file: new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0]), fileName: 'x.pdf' }),
    );
    expect({ status: executable.status, message: executable.message, attempts: executable.attempts }).toEqual({
      status: 415,
      message: messages.evidenceTypeNotAccepted,
      attempts: 1,
    });
    const large = new Uint8Array(11 * 1024 * 1024);
    large.set(PDF);
    const tooLarge = await refusal(pix.infractions.uploadEvidence(infractionId, { file: large, fileName: 'grande.pdf' }));
    expect({ status: tooLarge.status, message: tooLarge.message }).toEqual({ status: 413, message: messages.evidenceTooLarge });
    const missing = await refusal(pix.infractions.downloadEvidence(infractionId, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'));
    expect({ status: missing.status, message: missing.message }).toEqual({ status: 404, message: messages.evidenceNotFound });
    expect((await pix.infractions.listEvidence(infractionId)).count).toBe(0);
  });
});
