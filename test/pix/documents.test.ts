import { describe, it, expect } from 'vitest';
import { documentTypeOf, hasDocumentCharacters, isValidCnpj, isValidCpf, maskAnyDocument, maskDocument, normalizeDocument } from '../../src/pix/documents.js';

/** vectors.md: alphanumeric CNPJs (IN RFB 2.229/2024), valid and one with a wrong check digit. */
const ALPHANUMERIC_CNPJS = ['12ABC34501DE35', '00000000E08G12', 'AB1CD2EF000170'] as const;
const INVALID_ALPHANUMERIC_CNPJ = '12ABC34501DE36';

describe('normalizeDocument', () => {
  it.each([
    ['529.982.247-25', '52998224725'],
    [' 11.222.333/0001-81 ', '11222333000181'],
    ['529 982 247\t25', '52998224725'],
    ['12ABC345/01DE-35', '12ABC34501DE35'],
    ['12.abc.345/01de-35', '12ABC34501DE35'], // vectors.md: as a person may type it
    ['ab1cd2ef000170', 'AB1CD2EF000170'],
    ['(11) 9', '(11)9'], // only . - / and whitespace go
  ])('%j → %j', (input, expected) => {
    expect(normalizeDocument(input)).toBe(expected);
  });
});

describe('isValidCpf', () => {
  it.each([
    ['52998224725', true], // vectors.md
    ['52998224726', false], // second check digit changed
    ['52998224715', false], // first check digit changed
    ['00000000000', false],
    ['11111111111', false],
    ['99999999999', false],
    ['5299822472', false], // 10 digits
    ['529982247250', false], // 12 digits
    ['529.982.247-25', false], // formatted: callers normalise first
    ['5299822472a', false],
    ['5299822472A', false],
    ['', false],
  ])('%j → %s', (value, valid) => {
    expect(isValidCpf(value)).toBe(valid);
  });
});

describe('isValidCnpj', () => {
  it.each<[string, boolean]>([
    ['11222333000181', true], // vectors.md
    ['11222333000182', false],
    ['11222333000191', false],
    ['00000000000000', false],
    ['77777777777777', false],
    ['1122233300018', false],
    ['112223330001810', false],
    ['11.222.333/0001-81', false],
    ...ALPHANUMERIC_CNPJS.map((cnpj): [string, boolean] => [cnpj, true]),
    [INVALID_ALPHANUMERIC_CNPJ, false],
    ['12ABC34501DE3A', false], // check digits are numeric
    ['12abc34501de35', false], // callers normalise (upper-case) first
    ['12ABC34501DÉ35', false],
    ['', false],
  ])('%j → %s', (value, valid) => {
    expect(isValidCnpj(value)).toBe(valid);
  });

  it('does not accept a CPF as CNPJ or vice versa', () => {
    expect(isValidCnpj('52998224725')).toBe(false);
    expect(isValidCpf('11222333000181')).toBe(false);
  });
});

describe('hasDocumentCharacters', () => {
  it('allows letters in a CNPJ only', () => {
    expect(hasDocumentCharacters('cnpj', '12.abc.345/01de-35')).toBe(true);
    expect(hasDocumentCharacters('cpf', '529.982.247-25')).toBe(true);
    expect(hasDocumentCharacters('cpf', '529.982.247-2A')).toBe(false);
    expect(hasDocumentCharacters('cnpj', '12ABC34501DE3!')).toBe(false);
  });
});

describe('documentTypeOf', () => {
  it.each([
    ['52998224725', 'cpf'],
    ['11222333000181', 'cnpj'],
    ['12ABC34501DE35', 'cnpj'],
    ['12ABC34501DEAB', null],
    ['5299822472', null],
  ] as const)('%j → %s', (value, type) => {
    expect(documentTypeOf(value)).toBe(type);
  });
});

describe('maskDocument', () => {
  it.each([
    ['cpf', '12345678901', '***.456.789-**'],
    ['cpf', '52998224725', '***.982.247-**'],
    ['cnpj', '11222333000181', '**.222.333/0001-**'],
    ['cnpj', '12ABC34501DE35', '**.ABC.345/01DE-**'], // DESIGN.md §19: the same shape for both kinds
    ['cnpj', '00000000E08G12', '**.000.000/E08G-**'],
  ] as const)('%s %s → %s', (type, value, expected) => {
    expect(maskDocument(type, value)).toBe(expected);
    expect(maskAnyDocument(value)).toBe(expected);
  });

  it.each([
    ['cpf', '529.982.247-25'],
    ['cpf', '11222333000181'],
    ['cnpj', '52998224725'],
    ['cnpj', '12abc34501de35'],
  ] as const)('refuses to mask %s %j', (type, value) => {
    expect(() => maskDocument(type, value)).toThrow();
  });

  it('masks what is not a document as a dash', () => {
    expect(maskAnyDocument('123')).toBe('—');
  });
});
