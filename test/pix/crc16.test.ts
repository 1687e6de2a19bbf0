import { describe, it, expect } from 'vitest';
import { computeCRC } from 'pix-utils/dist/main/crc.js';
import { crc16CcittFalse } from '../../src/pix/crc16.js';

// From /work/shared/vectors.md (Banco Central's manual, via brazilian-utils' tests).
const STATIC_EXAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
const DYNAMIC_EXAMPLE =
  '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4';
const OWN_SHAPE_EXAMPLE =
  '00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5920GATEWAY EXEMPLO LTDA6009SAO PAULO62070503***6304FFE8';
const INVALID_EXAMPLE = `${STATIC_EXAMPLE.slice(0, -4)}1D3E`;

describe('crc16CcittFalse', () => {
  it('reproduces the CRC catalogue check value', () => {
    expect(crc16CcittFalse('123456789')).toBe('29B1');
  });

  it('pads to 4 uppercase hex digits', () => {
    expect(crc16CcittFalse('')).toBe('FFFF');
    expect(crc16CcittFalse('123456789')).toMatch(/^[0-9A-F]{4}$/);
  });

  it.each([
    ['static', STATIC_EXAMPLE],
    ['dynamic', DYNAMIC_EXAMPLE],
    ['own shape', OWN_SHAPE_EXAMPLE],
  ])('matches the CRC of the %s BR Code example', (_name, payload) => {
    expect(crc16CcittFalse(payload.slice(0, -4))).toBe(payload.slice(-4));
  });

  it('does not match the invalid example', () => {
    expect(crc16CcittFalse(INVALID_EXAMPLE.slice(0, -4))).not.toBe(INVALID_EXAMPLE.slice(-4));
  });

  it.each(['é', 'São João', 'ü€𝄞', 'plain ASCII'])('agrees with pix-utils (independent table-driven CRC over UTF-8) on %s', (text) => {
    expect(crc16CcittFalse(text)).toBe(computeCRC(text));
  });
});
