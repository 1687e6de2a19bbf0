import { describe, it, expect } from 'vitest';
import { PIX_KEY_TYPES, normalizePixKey, normalizePixKeyType, pixKeyFormatError, type PixKeyType } from '../../src/pix/pixKeys.js';

describe('normalizePixKeyType', () => {
  it.each([
    [' CPF ', 'cpf'],
    ['Email', 'email'],
    ['cnpj', 'cnpj'],
    ['PHONE', 'phone'],
    ['\tEvp\n', 'evp'],
    ['e mail', null],
    ['e-mail', null],
    ['random', null],
    ['', null],
    [null, null],
    [1, null],
    [['cpf'], null],
  ])('%j → %j', (input, expected) => {
    expect(normalizePixKeyType(input)).toBe(expected);
  });

  it('accepts every listed type', () => {
    for (const type of PIX_KEY_TYPES) expect(normalizePixKeyType(type)).toBe(type);
  });
});

describe('normalizePixKey', () => {
  it.each([
    ['cpf', ' 529.982.247-25 ', '52998224725'],
    ['cnpj', '11.222.333/0001-81', '11222333000181'],
    ['email', '  Fulano.Tal@Example.COM ', 'fulano.tal@example.com'],
    ['phone', ' +55 (11) 98765-4321 ', '+5511987654321'],
    ['evp', ' 123E4567-E12B-12D1-A456-426655440000 ', '123e4567-e12b-12d1-a456-426655440000'],
  ] as const)('%s %j → %j', (type, key, expected) => {
    expect(normalizePixKey(type, key)).toBe(expected);
  });
});

const CPF_ERROR = 'pixKey não é um CPF válido.';
const CNPJ_ERROR = 'pixKey não é um CNPJ válido.';
const EMAIL_ERROR = 'pixKey não é um e-mail válido (máximo 77 caracteres).';
const PHONE_ERROR = 'pixKey deve ser um telefone no formato +55DDDNÚMERO.';
const EVP_ERROR = 'pixKey deve ser uma chave aleatória (UUID) válida.';

// 77 characters exactly, then one more.
const EMAIL_77 = `${'a'.repeat(65)}@example.com`;

describe('pixKeyFormatError', () => {
  it.each<[PixKeyType, string, string | null]>([
    ['cpf', '52998224725', null],
    ['cpf', '52998224724', CPF_ERROR],
    ['cpf', '00000000000', CPF_ERROR],
    ['cpf', '529982247', CPF_ERROR],
    ['cnpj', '11222333000181', null],
    ['cnpj', '11222333000180', CNPJ_ERROR],
    ['cnpj', '52998224725', CNPJ_ERROR],
    ['email', 'fulano@example.com', null],
    ['email', 'fulano.de_tal+pix@mail.example.com.br', null],
    ['email', EMAIL_77, null],
    ['email', `a${EMAIL_77}`, EMAIL_ERROR],
    ['email', 'fulano@@example.com', EMAIL_ERROR],
    ['email', 'fulano@example', EMAIL_ERROR],
    ['email', 'fulano example@example.com', EMAIL_ERROR],
    ['email', '@example.com', EMAIL_ERROR],
    ['email', 'fulano@-example.com', EMAIL_ERROR],
    ['phone', '+5511987654321', null], // mobile, 9 digits
    ['phone', '+551133334444', null], // 8-digit number
    ['phone', '+14155550123', null], // non-Brazilian E.164
    ['phone', '5511987654321', PHONE_ERROR], // no +
    ['phone', '+55119876543210', PHONE_ERROR], // +55 with 12 digits
    ['phone', '+55119876543', PHONE_ERROR], // +55 with 9 digits
    ['phone', '+0511987654321', PHONE_ERROR],
    ['phone', '+1234567890123456', PHONE_ERROR], // 16 digits
    ['phone', '+55 11 98765-4321', PHONE_ERROR], // not normalized
    ['evp', '123e4567-e12b-12d1-a456-426655440000', null], // vectors.md example, not v4
    ['evp', '0195f3c2-7a1b-7c3d-8e4f-123456789abc', null], // v7
    ['evp', '123E4567-E12B-12D1-A456-426655440000', EVP_ERROR], // uppercase: normalize first
    ['evp', '123e4567e12b12d1a456426655440000', EVP_ERROR],
    ['evp', '123e4567-e12b-12d1-a456-42665544000g', EVP_ERROR],
  ])('%s %j → %j', (type, key, expected) => {
    expect(pixKeyFormatError(type, key)).toBe(expected);
  });

  it('accepts what normalizePixKey produces from typed input', () => {
    const typed: [PixKeyType, string][] = [
      ['cpf', '529.982.247-25'],
      ['cnpj', ' 11.222.333/0001-81'],
      ['email', 'Fulano@Example.com '],
      ['phone', '+55 (11) 98765-4321'],
      ['evp', '123E4567-E12B-12D1-A456-426655440000'],
    ];
    for (const [type, key] of typed) {
      expect(pixKeyFormatError(type, normalizePixKey(type, key))).toBeNull();
    }
  });
});
