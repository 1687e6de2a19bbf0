import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../packages/sdk/src/index.js';
import { startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';

// The package as a merchant gets it (DESIGN.md §18, issue 29 "Done when"): `npm pack` makes a clean
// tarball, `npm install` of it in an empty folder (offline: it has no dependency), and the
// README's quickstart, run by Node from that folder, works against a running gateway.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = join(ROOT, 'packages/sdk');
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));

let folder: string;
let app: string;
let files: string[];
let gateway: Gateway;
let merchant: Merchant;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'sdk-pack-'));
  // `prepack` builds dist/ with tsc first.
  const packed = await run('npm', ['pack', '--json', '--pack-destination', folder], { cwd: PACKAGE });
  const [info] = JSON.parse(packed.stdout);
  files = info.files.map((file: { path: string }) => file.path).sort();
  app = join(folder, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'loja', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(folder, info.filename)], { cwd: app });
  gateway = await startGateway();
  merchant = await gateway.createMerchant();
}, 180_000);
afterAll(async () => {
  await gateway?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('holds the compiled ESM with its .d.ts, the README, the CHANGELOG and package.json: no sources, tests or configs', () => {
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/generated/openapi.d.ts');
    expect(files.filter((file) => !file.startsWith('dist/'))).toEqual(['CHANGELOG.md', 'README.md', 'package.json']);
    expect(files.filter((file) => file.startsWith('dist/')).every((file) => /\.(js|d\.ts)$/.test(file))).toBe(true);
  });

  it('declares an exports map, ESM, Node ≥ 20.19 and no runtime dependency', () => {
    expect(manifest).toMatchObject({
      name: '@pix-gateway/sdk',
      type: 'module',
      engines: { node: '>=20.19' },
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
    });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toBeUndefined();
    expect(VERSION).toBe(manifest.version);
  });
});

describe('installed from the tarball in an empty folder', () => {
  it('imports by name, with nothing else installed', async () => {
    const installed = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8'));
    expect(Object.keys(installed.packages).sort()).toEqual(['', 'node_modules/@pix-gateway/sdk']);
    const script = `import * as sdk from '@pix-gateway/sdk'; console.log(Object.keys(sdk).sort().join(','));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
    expect(stdout.trim().split(',')).toEqual(
      expect.arrayContaining(['PixGateway', 'PixGatewayError', 'PixGatewayTimeoutError', 'verifyWebhook', 'generateExternalRef', 'externalRefFrom', 'VERSION']),
    );
  });

  it("runs the README's quickstart against a running gateway", async () => {
    const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');
    const quickstart = /## Quickstart\n\n```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(quickstart.trim().split('\n')).toHaveLength(10);
    writeFileSync(join(app, 'quickstart.mjs'), quickstart);
    const { stdout } = await run(process.execPath, ['quickstart.mjs'], {
      cwd: app,
      env: { ...process.env, PIX_API_KEY: merchant.apiKey, PIX_BASE_URL: gateway.url },
    });
    expect(stdout).toMatch(/^[0-9a-f-]{36} 000201/);
    expect(stdout).toContain("currency: 'BRL'");
    expect((await gateway.call('GET', '/v1/transactions', { key: merchant.apiKey })).body.count).toBe(1);
  });

  it('type-checks a TypeScript consumer against the shipped .d.ts (strict, NodeNext)', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      [
        `import { PixGateway, PixGatewayError, verifyWebhook, type Transaction, type WebhookEventOf } from '@pix-gateway/sdk';`,
        `const pix = new PixGateway({ apiKey: 'svck_x', baseUrl: 'http://localhost:3000' });`,
        `export async function main(): Promise<number> {`,
        `  const charge = await pix.charges.create({ amountCents: 1000, customer: { name: 'A', email: 'a@b.c', phone: '11987654321', document: { number: '52998224725', type: 'cpf' } } });`,
        `  const tx: Transaction = await pix.transactions.get(charge.transactionId);`,
        `  for await (const row of pix.transactions.list({ type: 'pix_in', limit: 10 })) console.log(row.amountCents);`,
        `  const png: Uint8Array = await pix.charges.qrCode(tx.transactionId);`,
        `  const svg: string = await pix.charges.qrCode(tx.transactionId, { format: 'svg' });`,
        `  const event = verifyWebhook('{}', {}, 'whsec_AAAA');`,
        `  if (event.event === 'transfer.paid') { const paid: WebhookEventOf<'transfer.paid'> = event; console.log(paid.beneficiary.name); }`,
        `  try { await pix.balance.get(); } catch (error) { if (error instanceof PixGatewayError) return error.status; }`,
        `  return png.length + svg.length;`,
        `}`,
        `// @ts-expect-error: amountCents is a number`,
        `void pix.charges.create({ amountCents: '10', customer: { name: 'A', email: 'a', phone: '1', document: { number: '1', type: 'cpf' } } });`,
        '',
      ].join('\n'),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const options = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2023'];
    const types = ['--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types')];
    const checked = await run(process.execPath, [tsc, ...options, ...types, 'consumer.ts'], { cwd: app }).catch((error: { stdout: string }) => error);
    expect(checked.stdout).toBe('');
  });
});
