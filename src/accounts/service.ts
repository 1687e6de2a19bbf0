import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { DEFAULT_FEES, DEFAULT_LIMITS, DEFAULT_RECIPIENT_LIMIT, type FeePlan } from '../config.js';
import { messages } from '../messages.js';
import { PIX_KEY_TYPES } from '../pix/pixKeys.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import { InvalidRequestError, InvalidStateError, NotFoundError } from '../errors.js';
import { newId } from '../platform/ids.js';
import { constantTimeEqual, sha256 } from '../platform/secrets.js';
import { compileAllowlist, findInvalidAllowlistEntry } from '../platform/ipAllowlist.js';
import { LIMIT_NAMES, toAccount, type Account, type AccountLimits } from './model.js';
import { purgeExpiredRateCounters } from '../platform/rateLimitRepository.js';
import * as repository from './repository.js';

const API_KEY_PREFIX = 'svck_';
const API_KEY_PATTERN = /^svck_[0-9a-f]{64}$/;
const PUBLIC_PREFIX_LENGTH = 16;

/** Spec: account checks may be cached up to 30 s; DESIGN.md §3: key lookups up to 5 s. */
const ACCOUNT_CACHE_TTL_MS = 30_000;
const API_KEY_CACHE_TTL_MS = 5_000;
/** A key's last use is kept to the minute. */
const KEY_USE_PRECISION_MS = 60_000;

export type NewAccountInput = {
  name: string;
  email: string;
  emailVerified?: boolean | undefined;
  city?: string | undefined;
  responsible: { name: string; cpf: string };
  company?: { legalName: string; cnpj: string } | undefined;
  kycStatus?: Account['kycStatus'] | undefined;
  withdrawalMode?: Account['withdrawalMode'] | undefined;
};

export type AccountPatch = {
  kycStatus?: Account['kycStatus'] | undefined;
  blocked?: boolean | undefined;
  withdrawalMode?: Account['withdrawalMode'] | undefined;
  emailVerified?: boolean | undefined;
  ipAllowlist?: string[] | undefined;
  allowedPixKeyTypes?: string[] | undefined;
  recipientLimit?: number | undefined;
  limits?: Partial<AccountLimits> | undefined;
  fees?: { pixIn?: Partial<FeePlan> | undefined; withdrawal?: Partial<FeePlan> | undefined } | undefined;
};

/** What authentication resolves a key to, with the allowlist compiled once. */
export type ResolvedKey = {
  keyId: string;
  accountId: string;
  ipAllowed: ((ip: string) => boolean) | null;
};

type CachedAccount = { account: Account; ipAllowed: (ip: string) => boolean };

export class AccountService {
  private readonly accountCache = new LRUCache<string, CachedAccount>({ max: 50_000, ttl: ACCOUNT_CACHE_TTL_MS });
  // Negative answers are cached too (as false), so a flood of bad keys does not reach the database.
  /** When this process last wrote each key's last use (ms). */
  private readonly keyUseWritten = new Map<string, number>();
  private readonly keyCache = new LRUCache<string, ResolvedKey | false>({ max: 100_000, ttl: API_KEY_CACHE_TTL_MS });

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async createAccount(input: NewAccountInput): Promise<Account> {
    const id = newId();
    const now = this.clock.now();
    await this.db.transaction().execute(async (tx) => {
      await repository.insertAccount(tx, {
        id,
        name: input.name,
        email: input.email,
        emailVerified: input.emailVerified ?? false,
        city: input.city ?? 'SAO PAULO',
        responsibleName: input.responsible.name,
        responsibleCpf: input.responsible.cpf,
        companyLegalName: input.company?.legalName ?? null,
        companyCnpj: input.company?.cnpj ?? null,
        kycStatus: input.kycStatus ?? 'pending',
        blocked: false,
        withdrawalMode: input.withdrawalMode ?? 'automatic',
        ipAllowlist: [],
        allowedPixKeyTypes: [...PIX_KEY_TYPES],
        recipientLimit: DEFAULT_RECIPIENT_LIMIT,
        ...DEFAULT_LIMITS,
        createdAt: now,
        updatedAt: now,
      });
      await repository.upsertFeePlan(tx, { accountId: id, transactionType: 'pix_in', ...DEFAULT_FEES.pixIn });
      await repository.upsertFeePlan(tx, { accountId: id, transactionType: 'withdrawal', ...DEFAULT_FEES.withdrawal });
    });
    return this.getAccount(id);
  }

  /** True once any account exists (the first start of an empty database creates a demo one). */
  anyExists(): Promise<boolean> {
    return repository.anyAccountExists(this.db);
  }

  /** Housekeeping: the request counters of windows that ended go. */
  purgeExpiredRateCounters(): Promise<number> {
    return purgeExpiredRateCounters(this.db, this.clock.now());
  }

  /** The back-office's list: newest first, by name or e-mail when `search` is given (fees not read). */
  async list(options: { search?: string | undefined; limit: number }) {
    return repository.listAccounts(this.db, options);
  }

  async getAccount(accountId: string): Promise<Account> {
    const [row, plans] = await Promise.all([repository.findAccount(this.db, accountId), repository.findFeePlans(this.db, accountId)]);
    if (!row) throw new NotFoundError(messages.accountNotFound);
    return toAccount(row, plans);
  }

  async patchAccount(accountId: string, patch: AccountPatch): Promise<Account> {
    const current = await this.getAccount(accountId);
    if (patch.ipAllowlist) {
      const invalid = findInvalidAllowlistEntry(patch.ipAllowlist);
      if (invalid !== undefined) throw new InvalidRequestError(messages.ipAllowlistInvalid(invalid));
    }
    const limits = { ...current.limits, ...patch.limits };
    if (limits.chargeMinCents > limits.chargeMaxCents) throw new InvalidRequestError(messages.chargeLimitsInvalid);
    if (limits.withdrawMinCents > limits.withdrawMaxCents) throw new InvalidRequestError(messages.withdrawLimitsInvalid);
    const fees = {
      pixIn: { ...current.fees.pixIn, ...patch.fees?.pixIn },
      withdrawal: { ...current.fees.withdrawal, ...patch.fees?.withdrawal },
    };
    if (fees.pixIn.minCents > fees.pixIn.maxCents || fees.withdrawal.minCents > fees.withdrawal.maxCents) {
      throw new InvalidRequestError(messages.feePlanInvalid);
    }

    await this.db.transaction().execute(async (tx) => {
      await repository.updateAccount(tx, accountId, {
        ...(patch.kycStatus !== undefined && { kycStatus: patch.kycStatus }),
        ...(patch.blocked !== undefined && { blocked: patch.blocked }),
        ...(patch.withdrawalMode !== undefined && { withdrawalMode: patch.withdrawalMode }),
        ...(patch.emailVerified !== undefined && { emailVerified: patch.emailVerified }),
        ...(patch.ipAllowlist !== undefined && { ipAllowlist: patch.ipAllowlist.map((entry) => entry.trim()) }),
        ...(patch.allowedPixKeyTypes !== undefined && { allowedPixKeyTypes: patch.allowedPixKeyTypes }),
        ...(patch.recipientLimit !== undefined && { recipientLimit: patch.recipientLimit }),
        ...Object.fromEntries(LIMIT_NAMES.map((name) => [name, limits[name]])),
        updatedAt: this.clock.now(),
      });
      await repository.upsertFeePlan(tx, { accountId, transactionType: 'pix_in', ...fees.pixIn });
      await repository.upsertFeePlan(tx, { accountId, transactionType: 'withdrawal', ...fees.withdrawal });
    });
    // This process sees the change at once; others within the cache's 30 s, as the spec allows.
    this.accountCache.delete(accountId);
    return this.getAccount(accountId);
  }

  async createApiKey(accountId: string): Promise<{ keyId: string; apiKey: string; prefix: string }> {
    const account = await this.getAccount(accountId);
    if (account.kycStatus !== 'approved' || !account.emailVerified) throw new InvalidStateError(messages.keyCreationNotAllowed);
    const apiKey = API_KEY_PREFIX + randomBytes(32).toString('hex');
    const keyId = newId();
    const prefix = apiKey.slice(0, PUBLIC_PREFIX_LENGTH);
    await repository.insertApiKey(this.db, { id: keyId, accountId, prefix, keyHash: sha256(apiKey) });
    return { keyId, apiKey, prefix };
  }

  /** The account's keys, newest first. */
  listApiKeys(accountId: string) {
    return repository.listApiKeys(this.db, accountId);
  }

  /** Revokes a key; with `accountId`, only one of that account's (another's is not found). */
  async revokeApiKey(keyId: string, accountId?: string): Promise<void> {
    const key = await this.requireApiKey(keyId);
    if (accountId && key.accountId !== accountId) throw new NotFoundError(messages.apiKeyNotFound);
    await repository.revokeApiKey(this.db, keyId, this.clock.now());
    this.keyCache.clear(); // entries are keyed by hash, not id; revocations are rare
  }

  async setApiKeyAllowlist(keyId: string, ipAllowlist: string[] | null) {
    await this.requireApiKey(keyId);
    if (ipAllowlist) {
      const invalid = findInvalidAllowlistEntry(ipAllowlist);
      if (invalid !== undefined) throw new InvalidRequestError(messages.ipAllowlistInvalid(invalid));
    }
    await repository.setApiKeyAllowlist(this.db, keyId, ipAllowlist ? ipAllowlist.map((entry) => entry.trim()) : null);
    this.keyCache.clear();
    const key = await this.requireApiKey(keyId);
    return { keyId: key.id, accountId: key.accountId, prefix: key.prefix, ipAllowlist: key.ipAllowlist, revoked: key.revokedAt !== null };
  }

  private async requireApiKey(keyId: string) {
    const key = await repository.findApiKey(this.db, keyId);
    if (!key) throw new NotFoundError(messages.apiKeyNotFound);
    return key;
  }

  /** The key behind a bearer token, or null when it is malformed, unknown or revoked. */
  async resolveApiKey(token: string): Promise<ResolvedKey | null> {
    if (!API_KEY_PATTERN.test(token)) return null;
    const hash = sha256(token);
    const cacheKey = hash.toString('base64');
    const cached = this.keyCache.get(cacheKey);
    if (cached !== undefined) return cached || null;

    const row = await repository.findApiKeyByPrefix(this.db, token.slice(0, PUBLIC_PREFIX_LENGTH));
    const valid = row !== undefined && row.revokedAt === null && constantTimeEqual(row.keyHash, hash);
    const resolved: ResolvedKey | false = valid
      ? { keyId: row.id, accountId: row.accountId, ipAllowed: row.ipAllowlist ? compileAllowlist(row.ipAllowlist) : null }
      : false;
    this.keyCache.set(cacheKey, resolved);
    return resolved || null;
  }

  /**
   * Notes a key's use for the Chaves de API page: written at most once a minute per key in this
   * process (the minute is the precision shown), so the API's requests stay reads.
   */
  async noteApiKeyUse(keyId: string): Promise<void> {
    const now = this.clock.now();
    const last = this.keyUseWritten.get(keyId);
    if (last !== undefined && now.getTime() - last < KEY_USE_PRECISION_MS) return;
    if (this.keyUseWritten.size >= 10_000) this.keyUseWritten.clear();
    this.keyUseWritten.set(keyId, now.getTime());
    await repository.recordApiKeyUse(this.db, keyId, now);
  }

  /** The account with its compiled allowlist, cached up to 30 s. */
  async cachedAccount(accountId: string): Promise<CachedAccount> {
    const cached = this.accountCache.get(accountId);
    if (cached) return cached;
    const account = await this.getAccount(accountId);
    const entry = { account, ipAllowed: compileAllowlist(account.ipAllowlist) };
    this.accountCache.set(accountId, entry);
    return entry;
  }
}
