import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { getPixPayloadInfo, isValidPixPayload } from '@brazilian-utils/brazilian-utils';
import { hasError, isDynamicPix, isStaticPix, parsePix } from 'pix-utils';
import { buildDynamicBrCode, buildStaticBrCode, parseBrCodeFields, toBrCodeText } from '../../src/pix/brcode.js';
import { crc16CcittFalse } from '../../src/pix/crc16.js';

// vectors.md: "a dynamic payload of our own shape".
const OWN_SHAPE_EXAMPLE =
  '00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5920GATEWAY EXEMPLO LTDA6009SAO PAULO62070503***6304FFE8';

const LONGEST_LOCATION = `pix.example.com/pix/v2/${'a1'.repeat(27)}`; // 77 chars

/** Both independent parsers must accept the payload and read back what we wrote. */
function expectAcceptedByIndependentParsers(payload: string, expected: { location: string; name: string; city: string }): void {
  expect(isValidPixPayload(payload)).toBe(true);
  expect(getPixPayloadInfo(payload)).toMatchObject({
    url: expected.location,
    merchantName: expected.name,
    merchantCity: expected.city,
    pointOfInitiation: 'dynamic',
  });

  const parsed = parsePix(payload);
  if (hasError(parsed)) throw new Error(`pix-utils rejected ${payload}: ${parsed.message}`);
  expect(isDynamicPix(parsed)).toBe(true);
  expect(parsed).toMatchObject({
    type: 'DYNAMIC',
    url: expected.location,
    merchantName: expected.name,
    merchantCity: expected.city,
    merchantCategoryCode: '0000',
    transactionCurrency: '986',
    countryCode: 'BR',
  });
}

describe('toBrCodeText', () => {
  it.each([
    ['Padaria São João Ltda Comércio de Pães', 25, 'Padaria Sao Joao Ltda Com'],
    ['  Açaí   do\tZé\n ', 25, 'Acai do Ze'],
    ['Ørsted ß 😀 Café', 25, 'rsted Cafe'],
    ['São José dos Campos', 15, 'Sao Jose dos Ca'],
    ['Loja Teste Longa X', 11, 'Loja Teste'], // cut lands on a space: trimmed again
    ['😀😀', 25, ''],
  ])('%j cut to %i → %j', (input, max, expected) => {
    expect(toBrCodeText(input, max)).toBe(expected);
  });
});

describe('buildDynamicBrCode', () => {
  it('reproduces the own-shape vector exactly', () => {
    expect(
      buildDynamicBrCode({
        locationUrl: 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25',
        merchantName: 'GATEWAY EXEMPLO LTDA',
        merchantCity: 'SAO PAULO',
      }),
    ).toBe(OWN_SHAPE_EXAMPLE);
  });

  it('writes the fields of a dynamic BR Code and no amount', () => {
    const fields = parseBrCodeFields(OWN_SHAPE_EXAMPLE);
    expect([...fields.keys()]).toEqual(['00', '01', '26', '52', '53', '58', '59', '60', '62', '63']);
    expect(fields.get('01')).toBe('12');
    expect(fields.has('54')).toBe(false);
    const account = parseBrCodeFields(fields.get('26') ?? '');
    expect(Object.fromEntries(account)).toEqual({
      '00': 'br.gov.bcb.pix',
      '25': 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25',
    });
    expect(Object.fromEntries(parseBrCodeFields(fields.get('62') ?? ''))).toEqual({ '05': '***' });
  });

  it.each([
    {
      locationUrl: 'pix.example.com/pix/v2/0195f3c2-7a1b-7c3d-8e4f-123456789abc',
      merchantName: 'Padaria São João Ltda Comércio de Pães',
      merchantCity: 'São José dos Campos',
      name: 'Padaria Sao Joao Ltda Com',
      city: 'Sao Jose dos Ca',
    },
    {
      locationUrl: LONGEST_LOCATION,
      merchantName: 'Ótica Visão & Cia. (Filial 2) — atacado',
      merchantCity: 'Santana do Livramento',
      name: 'Otica Visao & Cia. (Filia',
      city: 'Santana do Livr',
    },
    {
      locationUrl: 'api.gateway.com.br/pix/v2/x',
      merchantName: '   ',
      merchantCity: '😀',
      name: 'NAO INFORMADO',
      city: 'BRASIL',
    },
    {
      locationUrl: 'pix.example.com/pix/v2/abc',
      merchantName: "Joana D'Arc Açougue 6304",
      merchantCity: 'Itapecerica da Serra',
      name: "Joana D'Arc Acougue 6304",
      city: 'Itapecerica da',
    },
  ])('builds a payload both parsers accept for $merchantName', (row) => {
    const payload = buildDynamicBrCode(row);
    const fields = parseBrCodeFields(payload);
    expect(fields.get('59')).toBe(row.name);
    expect(fields.get('60')).toBe(row.city);
    expect(fields.get('63')).toBe(crc16CcittFalse(payload.slice(0, -4)));
    expectAcceptedByIndependentParsers(payload, {
      location: row.locationUrl,
      name: row.name,
      city: row.city,
    });
  });

  it('keeps fields 59/60 short ASCII and parseable for arbitrary Unicode input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 40 }), (merchantName, merchantCity) => {
        const payload = buildDynamicBrCode({
          locationUrl: LONGEST_LOCATION,
          merchantName,
          merchantCity,
        });
        const fields = parseBrCodeFields(payload);
        const name = fields.get('59') ?? '';
        const city = fields.get('60') ?? '';
        expect(name).toMatch(/^[\x20-\x7E]{1,25}$/);
        expect(city).toMatch(/^[\x20-\x7E]{1,15}$/);
        expectAcceptedByIndependentParsers(payload, { location: LONGEST_LOCATION, name, city });
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['https://pix.example.com/pix/v2/abc', /scheme/],
    ['HTTP://pix.example.com/pix/v2/abc', /scheme/],
    [`${LONGEST_LOCATION}b`, /77/],
    ['', /77/],
    ['pix.example.com/pix/v2/ação', /77/],
  ])('rejects the location %j', (locationUrl, message) => {
    expect(() => buildDynamicBrCode({ locationUrl, merchantName: 'X', merchantCity: 'Y' })).toThrow(message);
  });
});

describe('parseBrCodeFields', () => {
  it.each([
    ['', 'empty'],
    ['0002', 'overrun (value missing)'],
    ['000201xx', 'non-numeric header'],
    ['0002010105', 'truncated field'],
    ['0002010002ab', 'duplicate id'],
  ])('throws on %j (%s)', (payload) => {
    expect(() => parseBrCodeFields(payload)).toThrow();
  });
});

describe('static BR Code', () => {
  it('builds the published static example (vectors.md: "static (key)") exactly', () => {
    expect(buildStaticBrCode({ pixKey: '123e4567-e12b-12d1-a456-426655440000', merchantName: 'Fulano de Tal', merchantCity: 'BRASILIA' })).toBe(
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D',
    );
  });

  it.each([
    { amountCents: 1_050, description: 'Mesa 4 — café', txid: 'BALCAO4' },
    { amountCents: undefined, description: undefined, txid: 'a'.repeat(25) },
    { amountCents: 123_456_789, description: 'x'.repeat(80), txid: undefined },
  ])('with amount $amountCents, description and txid $txid: both independent parsers read back what was written', (row) => {
    const payload = buildStaticBrCode({
      pixKey: 'b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      merchantName: 'Padaria Pão Quente',
      merchantCity: 'São Paulo',
      ...row,
    });
    expect(isValidPixPayload(payload)).toBe(true);
    const parsed = parsePix(payload);
    expect(hasError(parsed)).toBe(false);
    if (hasError(parsed) || !isStaticPix(parsed)) throw new Error('expected a static payload');
    expect(parsed.pixKey).toBe('b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d');
    expect(parsed.transactionAmount).toBe(row.amountCents === undefined ? 0 : row.amountCents / 100);
    expect(parsed.txid).toBe(row.txid ?? '***');
    expect(parsed.merchantName).toBe('Padaria Pao Quente');
    expect(parsed.merchantCity).toBe('Sao Paulo');
    const account = parseBrCodeFields(parseBrCodeFields(payload).get('26') ?? '');
    if (row.description) expect(account.get('02')).toBe(toBrCodeText(row.description, 37));
    else expect(account.has('02')).toBe(false);
  });
});
