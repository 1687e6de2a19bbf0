import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { isId } from '../platform/ids.js';
import { messages } from '../messages.js';
import { isValidCnpj, isValidCpf, normalizeDocument } from '../pix/documents.js';
import { PIX_KEY_TYPES } from '../pix/pixKeys.js';
import { recordOf } from '../platform/records.js';
import { LIMIT_NAMES } from './model.js';

const cpf = (field: string) => z.string().transform(normalizeDocument).refine(isValidCpf, messages.cpfInvalid(field));

const cnpj = (field: string) => z.string().transform(normalizeDocument).refine(isValidCnpj, messages.cnpjInvalid(field));

const cents = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

const feePlan = z.object({ fixedCents: cents, bps: z.int().min(0).max(10_000), minCents: cents, maxCents: cents });

export const createAccountBody = z.object({
  name: z.string().trim().min(1).max(120),
  email: z.email(),
  emailVerified: z.boolean().optional(),
  city: z.string().trim().min(1).max(60).optional(),
  responsible: z.object({ name: z.string().trim().min(1).max(120), cpf: cpf('responsible.cpf') }),
  company: z.object({ legalName: z.string().trim().min(1).max(120), cnpj: cnpj('company.cnpj') }).optional(),
  kycStatus: z.enum(['approved', 'pending', 'rejected']).optional(),
  withdrawalMode: z.enum(['automatic', 'manual']).optional(),
});

export const patchAccountBody = z.object({
  kycStatus: z.enum(['approved', 'pending', 'rejected']).optional(),
  blocked: z.boolean().optional(),
  emailVerified: z.boolean().optional(),
  withdrawalMode: z.enum(['automatic', 'manual']).optional(),
  ipAllowlist: z.array(z.string().max(64)).max(100).optional().meta({ description: 'IPs and CIDRs, IPv4 or IPv6; empty = no restriction.' }),
  allowedPixKeyTypes: z.array(z.enum(PIX_KEY_TYPES)).optional(),
  recipientLimit: z.int().min(0).max(10_000).optional(),
  limits: z.object(recordOf(LIMIT_NAMES, () => cents.optional())).optional(),
  fees: z.object({ pixIn: feePlan.partial().optional(), withdrawal: feePlan.partial().optional() }).optional(),
});

export const accountResponse = z
  .object({
    accountId: z.string(),
    name: z.string(),
    email: z.string(),
    emailVerified: z.boolean(),
    city: z.string(),
    responsible: z.object({ name: z.string(), cpf: z.string() }),
    company: z.object({ legalName: z.string(), cnpj: z.string() }).nullable(),
    kycStatus: z.string(),
    blocked: z.boolean(),
    withdrawalMode: z.string(),
    ipAllowlist: z.array(z.string()),
    allowedPixKeyTypes: z.array(z.string()),
    recipientLimit: z.int(),
    limits: z.record(z.string(), z.int()),
    fees: z.object({ pixIn: feePlan, withdrawal: feePlan }),
    createdAt: z.int(),
    updatedAt: z.int(),
  })
  .meta({ id: 'Account' });

export const accountIdParams = z.object({ accountId: z.string() });
export const keyIdParams = z.object({ keyId: z.string() });

export const apiKeyAllowlistBody = z.object({
  ipAllowlist: z.array(z.string().max(64)).max(100).nullable().meta({ description: "The key's own list; null = use the account's." }),
});

/** An account id from a path: a UUID, else 400 before any lookup. */
export function requireAccountId(accountId: string): string {
  if (!isId(accountId)) throw new InvalidRequestError(messages.accountIdInvalid);
  return accountId;
}
