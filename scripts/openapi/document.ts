// `npm run lint:openapi` (part of `npm run lint`; docs/openapi.md): builds the app in-process (no
// port, an in-memory database that is never migrated), takes the OpenAPI document it would serve
// at /openapi.json, and lints it with Redocly CLI (redocly.yaml). Exits non-zero on any error.
//   tsx scripts/openapi/document.ts            lint
//   tsx scripts/openapi/document.ts FILE       write the document to FILE instead (e.g. to generate an SDK)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/platform/clock.js';
import { openDatabase } from '../../src/platform/database.js';
import { createServices } from '../../src/services.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The document of a gateway with the default simulated provider: every API, the sandbox included. */
async function servedDocument(): Promise<string> {
  // Only these variables: the developer's own (DATABASE_URL, PROVIDERS_FILE…) must not change the document.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: 'openapi-admin-token-0123456789',
    SECRET_KEY: 'openapi-secret-key-0123456789abcdef0123456789',
    PUBLIC_BASE_URL: 'https://pix-gateway.invalid',
  });
  const database = await openDatabase({ kind: 'memory' });
  const services = createServices(config, database.db, new ManualClock());
  const app = await buildApp(services, { logger: false });
  try {
    await app.ready();
    return JSON.stringify(app.swagger(), null, 2);
  } finally {
    await app.close();
    await services.webhookDispatcher.stop();
    await database.close();
  }
}

const output = process.argv[2];
const document = await servedDocument();
if (output) {
  writeFileSync(output, `${document}\n`);
} else {
  const folder = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const file = join(folder, 'openapi.json');
    writeFileSync(file, document);
    const redocly = fileURLToPath(import.meta.resolve('@redocly/cli/bin/cli.js'));
    const lint = spawnSync(process.execPath, [redocly, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'codeframe'], {
      stdio: 'inherit',
      env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    process.exitCode = lint.status ?? 1;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
