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

/** ISPB used by the simulated PIX provider in end-to-end ids. */
export const SIMULATED_ISPB = '99999999';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1');

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('./data'),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must have at least 16 characters').optional(),
  SERVICE_NAME: z.string().min(1).default('SVC'),
  PUBLIC_BASE_URL: z.url().optional(),
  PIX_PROVIDER: z.enum(['simulated']).default('simulated'),
  SANDBOX_SETTLE_MS: z.union([z.literal('manual'), z.coerce.number().int().min(0)]).default(1500),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('60,300,1800,7200,21600')
    .transform((value) => value.split(',').map((part) => Number(part.trim())))
    .refine((list) => list.every((seconds) => Number.isFinite(seconds) && seconds >= 0), 'must be a comma-separated list of seconds'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(8000),
  WEBHOOK_ALLOW_PRIVATE: booleanFlag,
  SECRET_KEY: z.string().min(32, 'SECRET_KEY must have at least 32 characters').optional(),
  TRUST_PROXY: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  adminToken: string | undefined;
  serviceName: string;
  publicBaseUrl: string;
  pixProvider: 'simulated';
  sandboxSettleMs: number | 'manual';
  webhookRetryScheduleSeconds: number[];
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  secretKey: string | undefined;
  trustProxy: string[];
  logLevel: string;
};

/** Reads DESIGN.md §7's environment; throws a readable error naming the bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  const env = parsed.data;
  const config: Config = {
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR,
    adminToken: env.ADMIN_TOKEN,
    serviceName: env.SERVICE_NAME,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`,
    pixProvider: env.PIX_PROVIDER,
    sandboxSettleMs: env.SANDBOX_SETTLE_MS,
    webhookRetryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE,
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE,
    secretKey: env.SECRET_KEY,
    trustProxy: (env.TRUST_PROXY ?? '').split(',').map((part) => part.trim()).filter(Boolean),
    logLevel: env.LOG_LEVEL,
  };
  if (config.databaseUrl?.startsWith('postgres') && !config.secretKey) {
    throw new Error('Invalid configuration: SECRET_KEY is required with a PostgreSQL server database');
  }
  return config;
}

/** BR Code location host: the public host without scheme or port (DESIGN.md §5). */
export function locationHost(config: Config): string {
  return new URL(config.publicBaseUrl).hostname;
}
