import { describe, it, expect } from 'vitest';
import { isValidCnpj, isValidCpf, maskDocument, stripDocumentFormatting } from '../../src/pix/documents.js';

describe('stripDocumentFormatting', () => {
  it.each([
    ['529.982.247-25', '52998224725'],
    [' 11.222.333/0001-81 ', '11222333000181'],
    ['529 982 247\t25', '52998224725'],
    ['12ABC345/01DE-35', '12ABC34501DE35'], // letters kept
    ['(11) 9', '(11)9'], // only . - / and whitespace go
  ])('%j → %j', (input, expected) => {
    expect(stripDocumentFormatting(input)).toBe(expected);
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
    ['529.982.247-25', false], // formatted: callers strip first
    ['5299822472a', false],
    ['', false],
  ])('%j → %s', (digits, valid) => {
    expect(isValidCpf(digits)).toBe(valid);
  });
});

describe('isValidCnpj', () => {
  it.each([
    ['11222333000181', true], // vectors.md
    ['11222333000182', false],
    ['11222333000191', false],
    ['00000000000000', false],
    ['77777777777777', false],
    ['1122233300018', false],
    ['112223330001810', false],
    ['11.222.333/0001-81', false],
    ['12ABC34501DE35', false], // alphanumeric CNPJ: not accepted yet
    ['', false],
  ])('%j → %s', (digits, valid) => {
    expect(isValidCnpj(digits)).toBe(valid);
  });

  it('does not accept a CPF as CNPJ or vice versa', () => {
    expect(isValidCnpj('52998224725')).toBe(false);
    expect(isValidCpf('11222333000181')).toBe(false);
  });
});

describe('maskDocument', () => {
  it.each([
    ['cpf', '12345678901', '***.456.789-**'],
    ['cpf', '52998224725', '***.982.247-**'],
    ['cnpj', '11222333000181', '**.222.333/0001-**'],
  ] as const)('%s %s → %s', (type, digits, expected) => {
    expect(maskDocument(type, digits)).toBe(expected);
  });

  it.each([
    ['cpf', '529.982.247-25'],
    ['cpf', '11222333000181'],
    ['cnpj', '52998224725'],
  ] as const)('refuses to mask %s %j', (type, digits) => {
    expect(() => maskDocument(type, digits)).toThrow();
  });
});
