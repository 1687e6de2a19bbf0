import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** Account defaults applied at creation; the operator can change each one per account. */
export const DEFAULT_LIMITS = {
  pixPerHour: 200,
  withdrawPerSecond: 1,
  withdrawPerMinute: 2,
  withdrawPerHour: 10,
  recipientsPerHour: 30,
  chargeMinCents: 100,
  chargeMaxCents: 10_000_000,
  withdrawMinCents: 100,
  withdrawMaxCents: 5_000_000,
  withdrawDailyCents: 20_000_000,
  withdrawMonthlyCents: 200_000_000,
} as const;

export const DEFAULT_RECIPIENT_LIMIT = 10;

export type FeePlan = { fixedCents: number; bps: number; minCents: number; maxCents: number };

/** Default fee plans (DESIGN.md §4): 0.99% per charge with R$ 0,50 minimum; R$ 1,00 per withdrawal. */
export const DEFAULT_FEES: { pixIn: FeePlan; withdrawal: FeePlan } = {
  pixIn: { fixedCents: 0, bps: 99, minCents: 50, maxCents: 100_000 },
  withdrawal: { fixedCents: 100, bps: 0, minCents: 100, maxCents: 100 },
};

/**
 * Where the data lives, decided here and nowhere else: a PostgreSQL server, the embedded
 * database (PGlite) in a folder, or an in-memory one that is lost on exit.
 */
export type DatabaseTarget = { kind: 'server'; url: string } | { kind: 'embedded'; dataDir: string } | { kind: 'memory' };

/** A path the process can read now: a missing certificate must stop the start, not the first payment. */
const readableFile = z.string().refine((path) => {
  try {
    accessSync(path, constants.R_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}, 'must name a readable file');

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

/** Only these select a database; a typo must never fall back to a local file in production. */
const DATABASE_URL_PATTERN = /^(postgres|postgresql):\/\/|^memory:\/\/$/;

/** The operator's account at the PSP for Pix Automático's cobr: `CORRENTE|POUPANCA|PAGAMENTO:<branch, up to 4 digits, may be empty>:<account, up to 20>`. */
const RECEIVER_ACCOUNT_PATTERN = /^(CORRENTE|POUPANCA|PAGAMENTO):(\d{0,4}):([0-9A-Za-z]{1,20})$/;
const RECEIVER_ACCOUNT_MESSAGE =
  'must be TYPE:branch:account (TYPE CORRENTE, POUPANCA or PAGAMENTO; branch up to 4 digits, may be empty; account up to 20 letters or digits)';

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .optional()
    .refine((value) => !value || DATABASE_URL_PATTERN.test(value), {
      // The value itself may hold a password: name only its scheme.
      error: (issue) =>
        `must be postgres://…, postgresql://… or memory:// (or unset for the embedded database in DATA_DIR); got ${describeScheme(String(issue.input))}`,
    }),
  // A read replica for the back-office's history and the exports (docs/operations.md "Read replicas").
  DATABASE_READ_URL: z
    .string()
    .optional()
    .refine((value) => !value || /^(postgres|postgresql):\/\//.test(value), {
      error: (issue) => `must be postgres://… or postgresql://…; got ${describeScheme(String(issue.input))}`,
    }),
  DATA_DIR: z.string().min(1).default('./data'),
  ADMIN_TOKEN: z.string().min(16, 'must have at least 16 characters').optional(),
  SERVICE_NAME: z.string().min(1).default('SVC'),
  PUBLIC_BASE_URL: z.url().optional(),
  // smtp:// or smtps:// (user and password in the URL): invitations are e-mailed when set.
  SMTP_URL: z
    .url()
    .refine((value) => /^smtps?:\/\//.test(value), 'must start with smtp:// or smtps://')
    .optional(),
  PIX_PROVIDER: z.enum(['simulated', 'apipix'], { error: "must be 'simulated' or 'apipix'" }).default('simulated'),
  PROVIDERS_FILE: z.string().min(1).optional(),
  TREASURY_LOW_COVER_CENTS: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  PSP_BASE_URL: z
    .url()
    .refine((value) => value.startsWith('https://'), 'must be an https:// URL')
    .optional(),
  PSP_TOKEN_URL: z
    .url()
    .refine((value) => value.startsWith('https://'), 'must be an https:// URL')
    .optional(),
  PSP_CLIENT_ID: z.string().min(1).optional(),
  PSP_CLIENT_SECRET: z.string().min(1).optional(),
  PSP_CERT_FILE: readableFile.optional(),
  PSP_KEY_FILE: readableFile.optional(),
  PSP_CA_FILE: readableFile.optional(),
  PSP_PIX_KEY: z.string().min(1).max(77).optional(),
  PSP_RECEIVER_ACCOUNT: z.string().regex(RECEIVER_ACCOUNT_PATTERN, RECEIVER_ACCOUNT_MESSAGE).optional(),
  PSP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  PSP_POLL_INTERVAL_MS: z.coerce.number().int().min(1000).default(60_000),
  PSP_SETTLING_WINDOW_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  PSP_WEBHOOK_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  PSP_WEBHOOK_CERT_FILE: readableFile.optional(),
  PSP_WEBHOOK_KEY_FILE: readableFile.optional(),
  PSP_WEBHOOK_CLIENT_CA_FILE: readableFile.optional(),
  SANDBOX_SETTLE_MS: z.union([z.literal('manual'), z.coerce.number().int().min(0)]).default(1500),
  MED_DEFENSE_DAYS: z.coerce.number().int().min(1).max(30).default(5),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('60,300,1800,7200,21600')
    .transform((value) => value.split(',').map((part) => Number(part.trim())))
    .refine((list) => list.every((seconds) => Number.isFinite(seconds) && seconds >= 0), 'must be a comma-separated list of seconds'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(8000),
  WEBHOOK_ALLOW_PRIVATE: booleanFlag,
  SECRET_KEY: z.string().min(32, 'must have at least 32 characters').optional(),
  TRUST_PROXY: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** The variables `PIX_PROVIDER=apipix` cannot run without (DESIGN.md §12). */
const REQUIRED_FOR_APIPIX = ['PSP_BASE_URL', 'PSP_CLIENT_ID', 'PSP_CLIENT_SECRET', 'PSP_CERT_FILE', 'PSP_KEY_FILE', 'PSP_PIX_KEY'] as const;
/** The notification listener's TLS: all three or none (then no listener: a proxy in front, or the poller alone). */
const WEBHOOK_TLS = ['PSP_WEBHOOK_CERT_FILE', 'PSP_WEBHOOK_KEY_FILE', 'PSP_WEBHOOK_CLIENT_CA_FILE'] as const;

function describeScheme(value: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  // `user:password@host` without `//` would pass for a scheme: never echo what may be a user name.
  const credentialsLike = !value.includes('//') && value.includes('@');
  return scheme && !credentialsLike ? `a URL with scheme "${scheme}:"` : 'a value that is not such a URL';
}

/** A provider the gateway talks to: the built-in simulator (its own sandbox state) or a PSP's API Pix. */
export type ProviderSettings =
  | {
      id: string;
      kind: 'simulated';
      /** How long a call waits before it gives up while the sandbox's outage switch says `timeout`. */
      timeoutMs: number;
      /** What the simulated account holds before its first movement (its reported balance starts there). */
      openingBalanceCents: number;
      /** Below this cover the treasury raises an alert (0: never). */
      lowCoverCents: number;
      caps: ProviderCaps;
      /** Days a merchant has to defend a MED case on a PIX this provider received (its entry's, else MED_DEFENSE_DAYS). */
      medDefenseDays: number;
    }
  | { id: string; kind: 'apipix'; psp: PspSettings; lowCoverCents: number; caps: ProviderCaps; medDefenseDays: number };

/**
 * What a PSP takes in one PIX (DESIGN.md §19): at most `maxChargeCents` in a charge and
 * `maxWithdrawalCents` in a withdrawal, and at most `night.maxCents` either way from `night.from`
 * to `night.to` (HH:MM, America/Sao_Paulo; the window may cross midnight). Null: no such cap.
 */
export type ProviderCaps = {
  maxChargeCents: number | null;
  maxWithdrawalCents: number | null;
  night: { from: string; to: string; maxCents: number } | null;
};

/** A provider that declares no cap. */
export const NO_CAPS: ProviderCaps = { maxChargeCents: null, maxWithdrawalCents: null, night: null };

/** API Pix's DadosBancariosRecebedor: the account the cycles of a recurrence are credited to. */
export type ReceiverAccount = { tipoConta: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO'; agencia: string | undefined; conta: string };

/** The id of the provider PIX_PROVIDER and PSP_* configure (without PROVIDERS_FILE, the only one). */
const DEFAULT_PROVIDER_ID = 'default';

export type PspSettings = {
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  certFile: string;
  keyFile: string;
  /** Absent: the PSP's server certificate is checked against the system's CAs. */
  caFile: string | undefined;
  /** The operator's receiving key: charges are made to it and withdrawals leave from it. */
  pixKey: string;
  /**
   * The operator's account at the PSP as API Pix's cobr names its recebedor (Pix Automático);
   * null: the provider takes no recurrences.
   */
  receiverAccount: ReceiverAccount | null;
  timeoutMs: number;
  pollIntervalMs: number;
  /**
   * After the latest attempt of a send that may have reached the PSP, how long before its "not
   * found" proves nothing was received (raised to twice a send's budget when shorter).
   */
  settlingWindowMs: number;
  /** The HTTPS listener of the PSP's notifications, which requires the PSP's client certificate. */
  webhook: { port: number; certFile: string; keyFile: string; clientCaFile: string } | null;
};

type Settings = {
  port: number;
  /** /metrics on a port of its own (then not on `port`); absent: /metrics on the API's port, and none in `worker`. */
  metricsPort: number | undefined;
  host: string;
  database: DatabaseTarget;
  /** A replica's URL for the reads that tolerate its lag (the back-office's history, exports); undefined: every read on `database`. */
  databaseReadUrl: string | undefined;
  serviceName: string;
  publicBaseUrl: string;
  /** Invitations are e-mailed through it when set (DESIGN.md §10). */
  smtpUrl: string | undefined;
  /**
   * The PIX providers the gateway talks to (DESIGN.md §14): those of PROVIDERS_FILE, or the one
   * PIX_PROVIDER/PSP_* configure, whose id is `default`. Never empty; ids are unique.
   */
  providers: ProviderSettings[];
  sandboxSettleMs: number | 'manual';
  /**
   * Days a merchant has to defend a MED case (DESIGN.md §19: the PSP's deadline, 5 by default):
   * the default of the providers whose entry declares none (infractions/deadlines.ts).
   */
  medDefenseDays: number;
  webhookRetryScheduleSeconds: number[];
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  trustProxy: string[];
  logLevel: string;
};

/** The environment as read, before the secrets are resolved. */
export type Environment = Settings & { adminToken: string | undefined; secretKey: string | undefined };

/** Everything a process runs with; the secrets are always there. */
export type Config = Settings & { adminToken: string; secretKey: string };

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

/** Reads DESIGN.md §7's environment; throws a ConfigurationError naming each bad variable. */
export function readEnvironment(environment: NodeJS.ProcessEnv = process.env): Environment {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new ConfigurationError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const env = parsed.data;
  const database: DatabaseTarget = !env.DATABASE_URL
    ? { kind: 'embedded', dataDir: env.DATA_DIR }
    : env.DATABASE_URL === 'memory://'
      ? { kind: 'memory' }
      : { kind: 'server', url: env.DATABASE_URL };
  if (database.kind === 'server') {
    const missing = [!env.ADMIN_TOKEN && 'ADMIN_TOKEN', !env.SECRET_KEY && 'SECRET_KEY'].filter(Boolean);
    if (missing.length > 0) throw new ConfigurationError(`Invalid configuration: ${missing.join(' and ')} required with a PostgreSQL server database`);
  }
  if (env.DATABASE_READ_URL && database.kind !== 'server') {
    throw new ConfigurationError('Invalid configuration: DATABASE_READ_URL needs DATABASE_URL on a PostgreSQL server');
  }
  return {
    port: env.PORT,
    providers: env.PROVIDERS_FILE
      ? readProvidersFile(env.PROVIDERS_FILE, {
          pspTimeoutMs: env.PSP_TIMEOUT_MS,
          lowCoverCents: env.TREASURY_LOW_COVER_CENTS,
          medDefenseDays: env.MED_DEFENSE_DAYS,
        })
      : [defaultProviderOf(env)],
    metricsPort: env.METRICS_PORT,
    host: env.HOST,
    database,
    databaseReadUrl: env.DATABASE_READ_URL,
    serviceName: env.SERVICE_NAME,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`,
    smtpUrl: env.SMTP_URL,
    sandboxSettleMs: env.SANDBOX_SETTLE_MS,
    medDefenseDays: env.MED_DEFENSE_DAYS,
    webhookRetryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE,
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE,
    trustProxy: (env.TRUST_PROXY ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
    logLevel: env.LOG_LEVEL,
    adminToken: env.ADMIN_TOKEN,
    secretKey: env.SECRET_KEY,
  };
}

function defaultProviderOf(env: z.infer<typeof environmentSchema>): ProviderSettings {
  const lowCoverCents = env.TREASURY_LOW_COVER_CENTS;
  const medDefenseDays = env.MED_DEFENSE_DAYS;
  if (env.PIX_PROVIDER === 'apipix') return { id: DEFAULT_PROVIDER_ID, kind: 'apipix', psp: pspSettingsOf(env), lowCoverCents, caps: NO_CAPS, medDefenseDays };
  return {
    id: DEFAULT_PROVIDER_ID,
    kind: 'simulated',
    timeoutMs: SIMULATED_TIMEOUT_MS,
    openingBalanceCents: SIMULATED_OPENING_BALANCE_CENTS,
    lowCoverCents,
    caps: NO_CAPS,
    medDefenseDays,
  };
}

/** A simulated provider's account starts with R$ 1.000.000,00 unless its entry says otherwise. */
const SIMULATED_OPENING_BALANCE_CENTS = 100_000_000;

/** A simulated provider's call under the `timeout` outage gives up after this long, unless its entry says otherwise. */
const SIMULATED_TIMEOUT_MS = 1000;

const httpsUrl = z.url().refine((value) => value.startsWith('https://'), 'must be an https:// URL');

const CAP_MESSAGE = 'must be a whole number of cents above zero';
const capCents = z.number({ error: CAP_MESSAGE }).int(CAP_MESSAGE).min(1, CAP_MESSAGE).max(Number.MAX_SAFE_INTEGER, CAP_MESSAGE);
const CLOCK_TIME_MESSAGE = 'must be a time of day HH:MM (America/Sao_Paulo)';
const clockTime = z.string({ error: CLOCK_TIME_MESSAGE }).regex(/^([01]\d|2[0-3]):[0-5]\d$/, CLOCK_TIME_MESSAGE);

const DEFENSE_DAYS_MESSAGE = 'must be a whole number of days from 1 to 30';
/** The MED defense deadline any entry may declare: its PSP's, in days (DESIGN.md §19); absent = MED_DEFENSE_DAYS. */
const medDefenseDaysSetting = z
  .number({ error: DEFENSE_DAYS_MESSAGE })
  .int(DEFENSE_DAYS_MESSAGE)
  .min(1, DEFENSE_DAYS_MESSAGE)
  .max(30, DEFENSE_DAYS_MESSAGE)
  .optional();

/** The per-PIX caps any entry may declare (ProviderCaps). */
const capSettings = {
  maxChargeCents: capCents.optional(),
  maxWithdrawalCents: capCents.optional(),
  night: z
    .strictObject({ from: clockTime, to: clockTime, maxCents: capCents }, { error: 'must be { "from": "HH:MM", "to": "HH:MM", "maxCents": … }' })
    .optional(),
};

/** One entry of PROVIDERS_FILE: DESIGN.md §12's settings in camelCase; secrets only as files. */
const providerEntrySchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      id: z.string(),
      kind: z.literal('simulated'),
      timeoutMs: z.number().int().min(10).max(120_000).optional(),
      openingBalanceCents: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      lowCoverCents: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      medDefenseDays: medDefenseDaysSetting,
      ...capSettings,
    }),
    z.strictObject({
      id: z.string(),
      kind: z.literal('apipix'),
      baseUrl: httpsUrl,
      tokenUrl: httpsUrl.optional(),
      clientId: z.string().min(1),
      clientSecretFile: readableFile,
      certFile: readableFile,
      keyFile: readableFile,
      caFile: readableFile.optional(),
      pixKey: z.string().min(1).max(77),
      receiverAccount: z.string().regex(RECEIVER_ACCOUNT_PATTERN, RECEIVER_ACCOUNT_MESSAGE).optional(),
      /** The cash-out API the PSP publishes; only Efí's is built (docs/providers.md). */
      cashOut: z.literal('efi', { error: "must be 'efi'" }).optional(),
      timeoutMs: z.number().int().min(100).max(120_000).optional(),
      pollIntervalMs: z.number().int().min(1000).optional(),
      settlingWindowMs: z.number().int().min(0).max(86_400_000).optional(),
      webhookPort: z.number().int().min(0).max(65535).optional(),
      webhookCertFile: readableFile.optional(),
      webhookKeyFile: readableFile.optional(),
      webhookClientCaFile: readableFile.optional(),
      lowCoverCents: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      medDefenseDays: medDefenseDaysSetting,
      ...capSettings,
    }),
  ],
  { error: "must be 'simulated' or 'apipix'" },
);

const PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** Settings that hold a secret: the file names the file it is in, never the secret (DESIGN.md §14). */
const INLINE_SECRETS = ['clientSecret', 'key', 'password', 'token'];

/**
 * Reads PROVIDERS_FILE (DESIGN.md §14). A bad file stops the start with one line naming the
 * entry and the field: an operator fixes it without reading a stack.
 */
function readProvidersFile(path: string, defaults: { pspTimeoutMs: number; lowCoverCents: number; medDefenseDays: number }): ProviderSettings[] {
  const refuse = (problem: string) => new ConfigurationError(`Invalid configuration: PROVIDERS_FILE ${problem}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw refuse(`${path} cannot be read`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw refuse(`${path} is not JSON`);
  }
  const entries = z.object({ providers: z.array(z.unknown()).min(1) }).safeParse(document);
  if (!entries.success) throw refuse('must be { "providers": [ ... ] } with at least one provider');
  const seen = new Set<string>();
  const listenerPorts = new Set<number>();
  return entries.data.providers.map((raw, index) => {
    const rawId = typeof raw === 'object' && raw !== null && 'id' in raw && typeof raw.id === 'string' ? raw.id : undefined;
    const entry = `providers[${index}]${rawId ? ` ("${rawId}")` : ''}`;
    const inline = typeof raw === 'object' && raw !== null ? INLINE_SECRETS.find((field) => field in raw) : undefined;
    if (inline) throw refuse(`${entry} ${inline} must not be written in the file: name the file that holds it (${inline}File)`);
    const parsed = providerEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      const field = issue?.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key].join('.')).join(', ') : issue?.path.join('.') || 'kind';
      const missing = issue?.code === 'invalid_type' && valueAt(raw, issue.path) === undefined;
      const problem = issue?.code === 'unrecognized_keys' ? 'is not a setting of a provider' : missing ? 'is required' : (issue?.message ?? 'is invalid');
      throw refuse(`${entry} ${field} ${problem}`);
    }
    const settings = parsed.data;
    if (!PROVIDER_ID_PATTERN.test(settings.id)) throw refuse(`${entry} id must be 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit`);
    if (seen.has(settings.id)) throw refuse(`${entry} id "${settings.id}" is used by an earlier entry`);
    seen.add(settings.id);
    const lowCoverCents = settings.lowCoverCents ?? defaults.lowCoverCents;
    const medDefenseDays = settings.medDefenseDays ?? defaults.medDefenseDays;
    const { night } = settings;
    // A window from a time to itself would be empty or the whole day: the operator says which with maxChargeCents / maxWithdrawalCents.
    if (night && night.from === night.to) throw refuse(`${entry} night.to must differ from night.from`);
    const caps: ProviderCaps = {
      maxChargeCents: settings.maxChargeCents ?? null,
      maxWithdrawalCents: settings.maxWithdrawalCents ?? null,
      night: night ?? null,
    };
    if (settings.kind === 'simulated') {
      return {
        id: settings.id,
        kind: 'simulated',
        timeoutMs: settings.timeoutMs ?? SIMULATED_TIMEOUT_MS,
        openingBalanceCents: settings.openingBalanceCents ?? SIMULATED_OPENING_BALANCE_CENTS,
        lowCoverCents,
        caps,
        medDefenseDays,
      };
    }
    const webhookFiles = [settings.webhookCertFile, settings.webhookKeyFile, settings.webhookClientCaFile];
    if (webhookFiles.some(Boolean) && !webhookFiles.every(Boolean)) {
      throw refuse(`${entry} webhookCertFile, webhookKeyFile, webhookClientCaFile go together (the PSP notification listener)`);
    }
    const port = settings.webhookCertFile ? (settings.webhookPort ?? DEFAULT_LISTENER_PORT) : null;
    // Two listeners cannot share a port (0: the system picks a free one for each).
    if (port) {
      if (listenerPorts.has(port)) throw refuse(`${entry} webhookPort ${port} is used by an earlier entry`);
      listenerPorts.add(port);
    }
    const clientSecret = readFileSync(settings.clientSecretFile, 'utf8').trim();
    if (!clientSecret) throw refuse(`${entry} clientSecretFile is empty`);
    const baseUrl = settings.baseUrl.replace(/\/+$/, '');
    return {
      id: settings.id,
      kind: 'apipix',
      lowCoverCents,
      caps,
      medDefenseDays,
      psp: {
        baseUrl,
        tokenUrl: settings.tokenUrl ?? `${new URL(baseUrl).origin}/oauth/token`,
        clientId: settings.clientId,
        clientSecret,
        certFile: settings.certFile,
        keyFile: settings.keyFile,
        caFile: settings.caFile,
        pixKey: settings.pixKey,
        receiverAccount: receiverAccountOf(settings.receiverAccount),
        timeoutMs: settings.timeoutMs ?? defaults.pspTimeoutMs,
        pollIntervalMs: settings.pollIntervalMs ?? 60_000,
        settlingWindowMs: settings.settlingWindowMs ?? 300_000,
        webhook: listenerOf(settings.webhookPort, settings.webhookCertFile, settings.webhookKeyFile, settings.webhookClientCaFile),
      },
    };
  });
}

/** The value at a path of parsed JSON; undefined where a step is absent. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((at, step) => (typeof at === 'object' && at !== null ? Reflect.get(at, step) : undefined), value);
}

function pspSettingsOf(env: z.infer<typeof environmentSchema>): PspSettings {
  const missing = REQUIRED_FOR_APIPIX.filter((name) => env[name] === undefined);
  if (missing.length > 0) throw new ConfigurationError(`Invalid configuration: ${missing.join(', ')} required with PIX_PROVIDER=apipix`);
  const tls = WEBHOOK_TLS.filter((name) => env[name] !== undefined);
  if (tls.length > 0 && tls.length < WEBHOOK_TLS.length) {
    throw new ConfigurationError(`Invalid configuration: ${WEBHOOK_TLS.join(', ')} go together (the PSP notification listener)`);
  }
  const baseUrl = (env.PSP_BASE_URL ?? '').replace(/\/+$/, '');
  return {
    baseUrl,
    tokenUrl: env.PSP_TOKEN_URL ?? `${new URL(baseUrl).origin}/oauth/token`,
    clientId: env.PSP_CLIENT_ID ?? '',
    clientSecret: env.PSP_CLIENT_SECRET ?? '',
    certFile: env.PSP_CERT_FILE ?? '',
    keyFile: env.PSP_KEY_FILE ?? '',
    caFile: env.PSP_CA_FILE,
    pixKey: env.PSP_PIX_KEY ?? '',
    receiverAccount: receiverAccountOf(env.PSP_RECEIVER_ACCOUNT),
    timeoutMs: env.PSP_TIMEOUT_MS,
    pollIntervalMs: env.PSP_POLL_INTERVAL_MS,
    settlingWindowMs: env.PSP_SETTLING_WINDOW_MS,
    webhook: listenerOf(env.PSP_WEBHOOK_PORT, env.PSP_WEBHOOK_CERT_FILE, env.PSP_WEBHOOK_KEY_FILE, env.PSP_WEBHOOK_CLIENT_CA_FILE),
  };
}

/** `TYPE:branch:account` (the branch may be empty), checked by RECEIVER_ACCOUNT_PATTERN. */
function receiverAccountOf(text: string | undefined): ReceiverAccount | null {
  const match = text === undefined ? null : RECEIVER_ACCOUNT_PATTERN.exec(text);
  const [, type, agencia, conta] = match ?? [];
  if (!conta || (type !== 'CORRENTE' && type !== 'POUPANCA' && type !== 'PAGAMENTO')) return null;
  return { tipoConta: type, agencia: agencia || undefined, conta };
}

/** The PSP notification listener's settings: its three files or none (then no listener); port 8443 by default. */
function listenerOf(
  port: number | undefined,
  certFile: string | undefined,
  keyFile: string | undefined,
  clientCaFile: string | undefined,
): PspSettings['webhook'] {
  return certFile && keyFile && clientCaFile ? { port: port ?? DEFAULT_LISTENER_PORT, certFile, keyFile, clientCaFile } : null;
}

const DEFAULT_LISTENER_PORT = 8443;

const generateSecret = () => randomBytes(32).toString('hex');

const storedSecretsSchema = z.object({ adminToken: z.string().optional(), secretKey: z.string().optional() });

/**
 * Secrets not given in the environment (a server database requires both: readEnvironment): on
 * the embedded database generated once and kept in the data folder (mode 0600), so restarts
 * keep the same admin token and recipient ids; on memory:// generated for this run.
 * `adminTokenGenerated`: the token is new, to be shown once.
 */
export function resolveSecrets(environment: Environment): { config: Config; adminTokenGenerated: boolean } {
  const storePath = environment.database.kind === 'embedded' ? join(environment.database.dataDir, 'secrets.json') : null;
  const stored = storePath && existsSync(storePath) ? storedSecretsSchema.parse(JSON.parse(readFileSync(storePath, 'utf8'))) : {};
  const adminToken = environment.adminToken ?? stored.adminToken;
  const secretKey = environment.secretKey ?? stored.secretKey;
  const config: Config = { ...environment, adminToken: adminToken ?? `adm_${generateSecret()}`, secretKey: secretKey ?? generateSecret() };
  if (storePath && (!adminToken || !secretKey)) {
    mkdirSync(join(storePath, '..'), { recursive: true });
    // Only what was generated joins the store: a secret given in the environment stays out of files.
    const generated = { ...(adminToken ? {} : { adminToken: config.adminToken }), ...(secretKey ? {} : { secretKey: config.secretKey }) };
    writeFileSync(storePath, JSON.stringify({ ...stored, ...generated }, null, 2), { mode: 0o600 });
  }
  return { config, adminTokenGenerated: !adminToken };
}

/** readEnvironment then resolveSecrets: the configuration a process runs with. */
export const loadConfig = (environment: NodeJS.ProcessEnv = process.env): Config => resolveSecrets(readEnvironment(environment)).config;
