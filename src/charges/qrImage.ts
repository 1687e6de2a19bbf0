import QRCode from 'qrcode';

export type QrFormat = 'png' | 'svg';

/** The QR image of a BR Code (DESIGN.md §10): PNG or SVG, `size` pixels wide, quiet zone of 4 modules. */
export async function renderQrImage(payload: string, format: QrFormat, size: number): Promise<{ contentType: string; body: Buffer | string }> {
  const options = { width: size, margin: 4, errorCorrectionLevel: 'M' as const };
  if (format === 'svg') return { contentType: 'image/svg+xml', body: await QRCode.toString(payload, { ...options, type: 'svg' }) };
  return { contentType: 'image/png', body: await QRCode.toBuffer(payload, { ...options, type: 'png' }) };
}
