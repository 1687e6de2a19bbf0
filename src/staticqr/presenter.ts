import type { StaticQrCodeRow } from '../platform/schema.js';

/** A static QR code as the API shows it: times in Unix milliseconds. */
export function presentStaticQr(code: StaticQrCodeRow) {
  return {
    id: code.id,
    txid: code.txid,
    pixPayload: code.pixPayload,
    amountCents: code.amountCents === null ? null : Number(code.amountCents),
    description: code.description,
    externalRef: code.externalRef,
    active: code.active,
    createdAt: code.createdAt.getTime(),
    deactivatedAt: code.deactivatedAt ? code.deactivatedAt.getTime() : null,
  };
}

export type StaticQrView = ReturnType<typeof presentStaticQr>;
