import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, readEnvironment, resolveSecrets } from '../src/config.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const ADMIN_TOKEN = 'admin-token-0123456789';
const SECRET_KEY = 'secret-key-0123456789abcdef0123456789';
const SERVER_SECRETS = { ADMIN_TOKEN, SECRET_KEY };

/** The ConfigurationError readEnvironment throws for `env` (fails the test when it does not throw). */
function refusal(env: NodeJS.ProcessEnv): ConfigurationError {
  try {
    readEnvironment(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    if (error instanceof ConfigurationError) return error;
  }
  throw new Error(`readEnvironment accepted ${JSON.stringify(env)}`);
}

const temporaryFolders: string[] = [];
const freshFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'pix-config-test-'));
  temporaryFolders.push(folder);
  return folder;
};
afterEach(() => {
  for (const folder of temporaryFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const DATABASE_URL_MESSAGE = (got: string) =>
  `Invalid configuration: DATABASE_URL must be postgres://…, postgresql://… or memory:// (or unset for the embedded database in DATA_DIR); got ${got}`;

describe('readEnvironment: DATABASE_READ_URL', () => {
  const primary = { DATABASE_URL: 'postgres://db-primary.example.com/prod', ...SERVER_SECRETS };

  it('a replica beside a server database', () => {
    const url = 'postgres://reader:s3cret@db-replica.example.com:5001/prod';
    expect(readEnvironment({ ...primary, DATABASE_READ_URL: url }).databaseReadUrl).toBe(url);
    expect(readEnvironment(primary).databaseReadUrl).toBeUndefined();
  });

  it('refuses another scheme, naming only the scheme (the URL may hold a password)', () => {
    expect(refusal({ ...primary, DATABASE_READ_URL: 'mysql://reader:s3cret@db/prod' }).message).toBe(
      'Invalid configuration: DATABASE_READ_URL must be postgres://… or postgresql://…; got a URL with scheme "mysql:"',
    );
  });

  it.each([
    ['the embedded database', {}],
    ['memory://', { DATABASE_URL: 'memory://' }],
  ])('refuses a replica beside %s', (_name, env) => {
    expect(refusal({ ...env, DATABASE_READ_URL: 'postgres://db-replica.example.com/prod' }).message).toBe(
      'Invalid configuration: DATABASE_READ_URL needs DATABASE_URL on a PostgreSQL server',
    );
  });
});

describe('readEnvironment: DATABASE_URL', () => {
  it.each([
    ['postgress://db.example.com/prod', 'a URL with scheme "postgress:"'],
    ['mysql://x/y', 'a URL with scheme "mysql:"'],
    ['memory://x', 'a URL with scheme "memory:"'],
    ['file:./data', 'a URL with scheme "file:"'],
    ['./data', 'a value that is not such a URL'],
    ['sqlite::memory:', 'a URL with scheme "sqlite:"'],
  ])('refuses %s, naming DATABASE_URL', (url, got) => {
    const error = refusal({ DATABASE_URL: url, ...SERVER_SECRETS });
    expect(error.message).toBe(DATABASE_URL_MESSAGE(got));
  });

  it('names the scheme of a refused URL but never its user, password or host', () => {
    const error = refusal({ DATABASE_URL: 'postgress://alice:s3cret@db.example.com/prod', ...SERVER_SECRETS });
    expect(error.message).toBe(DATABASE_URL_MESSAGE('a URL with scheme "postgress:"'));
    for (const secret of ['alice', 's3cret', 'db.example.com']) expect(error.message).not.toContain(secret);
    // Without `//`, `user:password@host` must not pass for a scheme either.
    const bare = refusal({ DATABASE_URL: 'dbadmin:s3cret@db.example.com/gw', ...SERVER_SECRETS });
    expect(bare.message).toContain('a value that is not such a URL');
    for (const secret of ['dbadmin', 's3cret', 'db.example.com']) expect(bare.message).not.toContain(secret);
  });

  it.each(['postgres://alice:s3cret@db.example.com:5432/prod', 'postgresql://db.example.com/prod'])('%s is a server database', (url) => {
    expect(readEnvironment({ DATABASE_URL: url, ...SERVER_SECRETS }).database).toEqual({ kind: 'server', url });
  });

  it('memory:// is the in-memory database', () => {
    expect(readEnvironment({ DATABASE_URL: 'memory://' }).database).toEqual({ kind: 'memory' });
  });

  it.each([
    ['unset', {}],
    ['empty', { DATABASE_URL: '' }],
  ])('%s is the embedded database in ./data', (_name, env) => {
    expect(readEnvironment(env).database).toEqual({ kind: 'embedded', dataDir: './data' });
  });

  it.each([
    ['unset', {}],
    ['empty', { DATABASE_URL: '' }],
  ])('%s is the embedded database in DATA_DIR when given', (_name, env) => {
    expect(readEnvironment({ ...env, DATA_DIR: '/var/lib/pix' }).database).toEqual({ kind: 'embedded', dataDir: '/var/lib/pix' });
  });
});

describe('readEnvironment: secrets and provider', () => {
  const server = { DATABASE_URL: 'postgres://db.example.com/prod' };

  it.each([
    ['SECRET_KEY', { ADMIN_TOKEN }, 'Invalid configuration: SECRET_KEY required with a PostgreSQL server database'],
    ['ADMIN_TOKEN', { SECRET_KEY }, 'Invalid configuration: ADMIN_TOKEN required with a PostgreSQL server database'],
    ['both', {}, 'Invalid configuration: ADMIN_TOKEN and SECRET_KEY required with a PostgreSQL server database'],
  ])('a server database without %s is refused, naming exactly the missing ones', (_name, secrets, message) => {
    expect(refusal({ ...server, ...secrets }).message).toBe(message);
  });

  it('ADMIN_TOKEN shorter than 16 characters is refused', () => {
    expect(refusal({ ...server, SECRET_KEY, ADMIN_TOKEN: 'a'.repeat(15) }).message).toBe('Invalid configuration: ADMIN_TOKEN must have at least 16 characters');
    expect(readEnvironment({ ...server, SECRET_KEY, ADMIN_TOKEN: 'a'.repeat(16) }).adminToken).toBe('a'.repeat(16));
  });

  it('SECRET_KEY shorter than 32 characters is refused', () => {
    expect(refusal({ ...server, ADMIN_TOKEN, SECRET_KEY: 's'.repeat(31) }).message).toBe('Invalid configuration: SECRET_KEY must have at least 32 characters');
    expect(readEnvironment({ ...server, ADMIN_TOKEN, SECRET_KEY: 's'.repeat(32) }).secretKey).toBe('s'.repeat(32));
  });

  it('a short secret is refused on the embedded database too', () => {
    expect(refusal({ ADMIN_TOKEN: 'short' }).message).toBe('Invalid configuration: ADMIN_TOKEN must have at least 16 characters');
  });

  it('PIX_PROVIDER apipix refuses to start without its PSP settings, naming each missing one', () => {
    expect(refusal({ ...server, ...SERVER_SECRETS, PIX_PROVIDER: 'apipix' }).message).toBe(
      'Invalid configuration: PSP_BASE_URL, PSP_CLIENT_ID, PSP_CLIENT_SECRET, PSP_CERT_FILE, PSP_KEY_FILE, PSP_PIX_KEY required with PIX_PROVIDER=apipix',
    );
    expect(refusal({ ...server, ...SERVER_SECRETS, PIX_PROVIDER: 'paypal' }).message).toBe(
      "Invalid configuration: PIX_PROVIDER must be 'simulated' or 'apipix'",
    );
  });

  it('PIX_PROVIDER apipix refuses a certificate file that is missing, and an http:// PSP', () => {
    const certificate = fileURLToPath(import.meta.url); // any readable file stands for the certificate here
    const psp = {
      ...server,
      ...SERVER_SECRETS,
      PIX_PROVIDER: 'apipix',
      PSP_BASE_URL: 'https://psp.example.com/api/v2',
      PSP_CLIENT_ID: 'id',
      PSP_CLIENT_SECRET: 'secret',
      PSP_CERT_FILE: certificate,
      PSP_KEY_FILE: certificate,
      PSP_PIX_KEY: 'recebimentos@example.com',
    };
    expect(readEnvironment(psp).providers).toMatchObject([
      {
        id: 'default',
        kind: 'apipix',
        psp: {
          baseUrl: 'https://psp.example.com/api/v2',
          tokenUrl: 'https://psp.example.com/oauth/token',
          webhook: null,
        },
      },
    ]);
    expect(refusal({ ...psp, PSP_CERT_FILE: '/nonexistent/client.crt' }).message).toBe('Invalid configuration: PSP_CERT_FILE must name a readable file');
    expect(refusal({ ...psp, PSP_BASE_URL: 'http://psp.example.com' }).message).toBe('Invalid configuration: PSP_BASE_URL must be an https:// URL');
    expect(refusal({ ...psp, PSP_WEBHOOK_CERT_FILE: certificate }).message).toBe(
      'Invalid configuration: PSP_WEBHOOK_CERT_FILE, PSP_WEBHOOK_KEY_FILE, PSP_WEBHOOK_CLIENT_CA_FILE go together (the PSP notification listener)',
    );
  });

  it('PIX_PROVIDER defaults to the simulator', () => {
    expect(readEnvironment({ DATABASE_URL: 'memory://' }).providers).toEqual([
      {
        id: 'default',
        kind: 'simulated',
        timeoutMs: 1000,
        openingBalanceCents: 100_000_000,
        lowCoverCents: 0,
        caps: { maxChargeCents: null, maxWithdrawalCents: null, night: null },
        medDefenseDays: 5,
      },
    ]);
  });
});

describe('readEnvironment: PROVIDERS_FILE', () => {
  const readable = fileURLToPath(import.meta.url); // any readable file stands for a certificate here
  const secretFile = () => {
    const path = join(freshFolder(), 'client-secret');
    writeFileSync(path, 'the-secret\n');
    return path;
  };
  const apipix = (overrides: Record<string, unknown> = {}) => ({
    id: 'efi',
    kind: 'apipix',
    baseUrl: 'https://pix.example.com/v2',
    clientId: 'client',
    clientSecretFile: secretFile(),
    certFile: readable,
    keyFile: readable,
    pixKey: 'recebimentos@example.com',
    ...overrides,
  });
  const withFile = (content: unknown) => {
    const path = join(freshFolder(), 'providers.json');
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return { DATABASE_URL: 'memory://', PROVIDERS_FILE: path };
  };

  it('reads simulated and apipix providers, the secret from its file, and leaves PIX_PROVIDER aside', () => {
    const env = withFile({ providers: [{ id: 'sim-a', kind: 'simulated', timeoutMs: 200 }, apipix({ webhookPort: 9443 })] });
    const { providers } = readEnvironment({ ...env, PIX_PROVIDER: 'apipix' });
    expect(providers).toMatchObject([
      { id: 'sim-a', kind: 'simulated', timeoutMs: 200 },
      {
        id: 'efi',
        kind: 'apipix',
        psp: {
          baseUrl: 'https://pix.example.com/v2',
          tokenUrl: 'https://pix.example.com/oauth/token',
          clientSecret: 'the-secret',
          timeoutMs: 10_000,
          webhook: null,
        },
      },
    ]);
  });

  it.each([
    ['not JSON', '{ providers: ', (path: string) => `${path} is not JSON`],
    ['no list', { providers: [] }, () => 'must be { "providers": [ ... ] } with at least one provider'],
    ['an unknown kind', { providers: [{ id: 'x', kind: 'paypal' }] }, () => `providers[0] ("x") kind must be 'simulated' or 'apipix'`],
    [
      'a duplicate id',
      {
        providers: [
          { id: 'a', kind: 'simulated' },
          { id: 'a', kind: 'simulated' },
        ],
      },
      () => 'providers[1] ("a") id "a" is used by an earlier entry',
    ],
    [
      'a bad id',
      { providers: [{ id: 'A B', kind: 'simulated' }] },
      () => 'providers[0] ("A B") id must be 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit',
    ],
    ['an unknown setting', { providers: [{ id: 'a', kind: 'simulated', colour: 'blue' }] }, () => 'providers[0] ("a") colour is not a setting of a provider'],
  ])('refuses %s with one line naming the entry and the field', (_case, content, message) => {
    const env = withFile(content);
    expect(refusal(env).message).toBe(`Invalid configuration: PROVIDERS_FILE ${message(env.PROVIDERS_FILE)}`);
  });

  it('refuses a missing certificate, a missing field, an http:// PSP and a secret written inline, naming each', () => {
    const cases: [Record<string, unknown>, string][] = [
      [apipix({ certFile: '/nonexistent/client.crt' }), 'providers[0] ("efi") certFile must name a readable file'],
      [apipix({ pixKey: undefined }), 'providers[0] ("efi") pixKey is required'],
      [apipix({ baseUrl: 'http://pix.example.com' }), 'providers[0] ("efi") baseUrl must be an https:// URL'],
      [
        apipix({ clientSecret: 'written-here' }),
        'providers[0] ("efi") clientSecret must not be written in the file: name the file that holds it (clientSecretFile)',
      ],
      [
        apipix({ webhookCertFile: readable }),
        'providers[0] ("efi") webhookCertFile, webhookKeyFile, webhookClientCaFile go together (the PSP notification listener)',
      ],
    ];
    for (const [entry, message] of cases) expect(refusal(withFile({ providers: [entry] })).message).toBe(`Invalid configuration: PROVIDERS_FILE ${message}`);
    const listener = { webhookCertFile: readable, webhookKeyFile: readable, webhookClientCaFile: readable };
    expect(refusal(withFile({ providers: [apipix(listener), apipix({ ...listener, id: 'outro', webhookPort: 8443 })] })).message).toBe(
      'Invalid configuration: PROVIDERS_FILE providers[1] ("outro") webhookPort 8443 is used by an earlier entry',
    );
    expect(
      readEnvironment(withFile({ providers: [apipix({ ...listener, webhookPort: 0 }), apipix({ ...listener, id: 'outro', webhookPort: 0 })] })).providers,
    ).toHaveLength(2);
    expect(refusal({ DATABASE_URL: 'memory://', PROVIDERS_FILE: '/nonexistent/providers.json' }).message).toBe(
      'Invalid configuration: PROVIDERS_FILE /nonexistent/providers.json cannot be read',
    );
  });

  it('reads each provider’s caps (none where an entry declares none)', () => {
    const night = { from: '20:00', to: '06:00', maxCents: 100_000 };
    const { providers } = readEnvironment(
      withFile({ providers: [{ id: 'sim-a', kind: 'simulated', maxWithdrawalCents: 1_500_000, night }, apipix({ maxChargeCents: 1_500_000 })] }),
    );
    expect(providers.map((provider) => provider.caps)).toEqual([
      { maxChargeCents: null, maxWithdrawalCents: 1_500_000, night },
      { maxChargeCents: 1_500_000, maxWithdrawalCents: null, night: null },
    ]);
  });

  it('refuses a bad cap or night window, naming the entry and the field', () => {
    const night = { from: '20:00', to: '06:00', maxCents: 100_000 };
    const cases: [Record<string, unknown>, string][] = [
      [{ maxWithdrawalCents: 0 }, 'maxWithdrawalCents must be a whole number of cents above zero'],
      [{ maxChargeCents: 1500.5 }, 'maxChargeCents must be a whole number of cents above zero'],
      [{ maxChargeCents: '1500000' }, 'maxChargeCents must be a whole number of cents above zero'],
      [{ night: { ...night, from: '24:00' } }, 'night.from must be a time of day HH:MM (America/Sao_Paulo)'],
      [{ night: { ...night, to: '6:00' } }, 'night.to must be a time of day HH:MM (America/Sao_Paulo)'],
      [{ night: { from: '20:00', to: '06:00' } }, 'night.maxCents is required'],
      [{ night: { ...night, maxCents: -1 } }, 'night.maxCents must be a whole number of cents above zero'],
      [{ night: { ...night, to: '20:00' } }, 'night.to must differ from night.from'],
      [{ night: { ...night, days: 'weekdays' } }, 'night.days is not a setting of a provider'],
      [{ night: '20:00-06:00' }, 'night must be { "from": "HH:MM", "to": "HH:MM", "maxCents": … }'],
    ];
    for (const [caps, message] of cases) {
      expect(
        refusal(
          withFile({
            providers: [
              { id: 'sim-a', kind: 'simulated' },
              { id: 'psp-b', kind: 'simulated', ...caps },
            ],
          }),
        ).message,
      ).toBe(`Invalid configuration: PROVIDERS_FILE providers[1] ("psp-b") ${message}`);
    }
    expect(refusal(withFile({ providers: [apipix({ maxWithdrawalCents: 0 })] })).message).toBe(
      'Invalid configuration: PROVIDERS_FILE providers[0] ("efi") maxWithdrawalCents must be a whole number of cents above zero',
    );
  });

  it('reads each provider’s MED defense days: its own, else MED_DEFENSE_DAYS (5 when unset)', () => {
    const entries = { providers: [{ id: 'sim-a', kind: 'simulated', medDefenseDays: 3 }, apipix()] };
    expect(readEnvironment(withFile(entries)).providers.map((provider) => [provider.id, provider.medDefenseDays])).toEqual([
      ['sim-a', 3],
      ['efi', 5],
    ]);
    const withDefault = readEnvironment({ ...withFile(entries), MED_DEFENSE_DAYS: '10' });
    expect(withDefault.medDefenseDays).toBe(10);
    expect(withDefault.providers.map((provider) => provider.medDefenseDays)).toEqual([3, 10]);
    expect(readEnvironment({ DATABASE_URL: 'memory://', MED_DEFENSE_DAYS: '2' }).providers.map((provider) => provider.medDefenseDays)).toEqual([2]);
  });

  it.each([0, 31, 2.5, '3'])('refuses medDefenseDays %j, naming the entry', (days) => {
    expect(refusal(withFile({ providers: [{ id: 'sim-a', kind: 'simulated', medDefenseDays: days }] })).message).toBe(
      'Invalid configuration: PROVIDERS_FILE providers[0] ("sim-a") medDefenseDays must be a whole number of days from 1 to 30',
    );
  });
});

describe('resolveSecrets', () => {
  it('memory: generates both secrets for this run and writes nothing', () => {
    const cwd = freshFolder();
    const dataDir = join(cwd, 'data');
    const previous = process.cwd();
    process.chdir(cwd);
    try {
      const { config, adminTokenGenerated } = resolveSecrets(readEnvironment({ DATABASE_URL: 'memory://', DATA_DIR: dataDir }));
      expect(config.adminToken).toMatch(/^adm_[0-9a-f]{64}$/);
      expect(config.secretKey).toMatch(/^[0-9a-f]{64}$/);
      expect(adminTokenGenerated).toBe(true);
    } finally {
      process.chdir(previous);
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('memory: each run has its own secrets', () => {
    const first = resolveSecrets(readEnvironment({ DATABASE_URL: 'memory://' })).config;
    const second = resolveSecrets(readEnvironment({ DATABASE_URL: 'memory://' })).config;
    expect(second.adminToken).not.toBe(first.adminToken);
    expect(second.secretKey).not.toBe(first.secretKey);
  });

  it('embedded: generates both once, keeps them in secrets.json (0600), and reuses them', () => {
    const dataDir = join(freshFolder(), 'data');
    const first = resolveSecrets(readEnvironment({ DATA_DIR: dataDir }));
    expect(first.adminTokenGenerated).toBe(true);
    expect(first.config.adminToken).toMatch(/^adm_[0-9a-f]{64}$/);
    expect(first.config.secretKey).toMatch(/^[0-9a-f]{64}$/);

    const store = join(dataDir, 'secrets.json');
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(store, 'utf8'))).toEqual({ adminToken: first.config.adminToken, secretKey: first.config.secretKey });

    const second = resolveSecrets(readEnvironment({ DATA_DIR: dataDir }));
    expect(second.adminTokenGenerated).toBe(false);
    expect(second.config.adminToken).toBe(first.config.adminToken);
    expect(second.config.secretKey).toBe(first.config.secretKey);
  });

  it('embedded: an ADMIN_TOKEN from the environment is used and never written to secrets.json', () => {
    const dataDir = freshFolder();
    const given = 'operator-chosen-token-0123';
    const { config, adminTokenGenerated } = resolveSecrets(readEnvironment({ DATA_DIR: dataDir, ADMIN_TOKEN: given }));
    expect(config.adminToken).toBe(given);
    expect(adminTokenGenerated).toBe(false);

    const text = readFileSync(join(dataDir, 'secrets.json'), 'utf8');
    expect(JSON.parse(text)).toEqual({ secretKey: config.secretKey });
    expect(text).not.toContain(given);
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('embedded: both secrets from the environment write no file', () => {
    const dataDir = freshFolder();
    const { config, adminTokenGenerated } = resolveSecrets(readEnvironment({ DATA_DIR: dataDir, ...SERVER_SECRETS }));
    expect(config).toMatchObject({ adminToken: ADMIN_TOKEN, secretKey: SECRET_KEY });
    expect(adminTokenGenerated).toBe(false);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('the CLI with a mistyped DATABASE_URL', () => {
  it('migrate exits 1 naming DATABASE_URL and creates no data folder', async () => {
    const cwd = freshFolder();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: 'postgress://db.example.com/prod' };
    delete env.DATA_DIR;
    const child = spawn(process.execPath, [join(REPO, 'scripts/start.mjs'), 'migrate'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });

    expect(code).toBe(1);
    expect(stderr).toContain('DATABASE_URL');
    expect(stderr).toContain('"postgress:"');
    expect(stderr).not.toContain('db.example.com');
    expect(existsSync(join(cwd, 'data'))).toBe(false);
    expect(readdirSync(cwd)).toEqual([]);
  }, 60_000);
});

describe('doctor on a fresh embedded folder', () => {
  it('reads the ledger and writes no secret (the admin token stays to be printed by the first serve)', async () => {
    const cwd = freshFolder();
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: join(cwd, 'data') };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, [join(REPO, 'scripts/start.mjs'), 'doctor'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.resume();
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    expect(code).toBe(0);
    expect(stdout).toContain('Ledger invariants hold.');
    expect(existsSync(join(cwd, 'data', 'secrets.json'))).toBe(false);
  }, 60_000);
});
