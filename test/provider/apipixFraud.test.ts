import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, fund, withdraw } from '../helpers/api.js';
import { backend, startGateway, withdrawalToHolder, type Gateway, type Merchant } from '../helpers/gateway.js';
import { makePspCertificates, type PspCertificates } from '../psp/certificates.js';
import { CLIENT_ID, CLIENT_SECRET, startPspDouble, type PspDouble } from '../psp/double.js';

/**
 * A key the PSP's DICT marks for fraud (DESIGN.md §19, Res. BCB 501) through the API Pix adapter:
 * the PSP refuses the send (`chave_com_restricao`), and the gateway answers the same 422 as for
 * its own list, the debit returned (docs/fraud-marks.md: the PSP tells only at the send).
 */
const PIX_KEY = 'recebimentos@gateway.example';
const REFUSED = 'Chave PIX com restrição por suspeita de fraude. Saque não realizado.';
const HOLDER_CPF = '52998224725'; // test/helpers/gateway.ts accountBody

let certificates: PspCertificates;
let double: PspDouble;
let gateway: Gateway;
let merchant: Merchant;
let certificateDir: string;

beforeAll(async () => {
  certificateDir = mkdtempSync(join(tmpdir(), 'psp-'));
  certificates = makePspCertificates(certificateDir);
  double = await startPspDouble(certificates, { pixKey: PIX_KEY });
  gateway = await startGateway({
    PIX_PROVIDER: 'apipix',
    PSP_BASE_URL: double.baseUrl,
    PSP_TOKEN_URL: double.tokenUrl,
    PSP_CLIENT_ID: CLIENT_ID,
    PSP_CLIENT_SECRET: CLIENT_SECRET,
    PSP_CERT_FILE: certificates.gatewayClientCert,
    PSP_KEY_FILE: certificates.gatewayClientKey,
    PSP_CA_FILE: certificates.caCert,
    PSP_PIX_KEY: PIX_KEY,
    PSP_TIMEOUT_MS: '1000',
  });
  merchant = await gateway.createMerchant({ limits: { withdrawPerSecond: 100, withdrawPerMinute: 100, withdrawPerHour: 100 } });
  await fund(gateway, merchant, 50_000);
}, 30_000);

afterAll(async () => {
  await gateway?.close();
  await double?.close();
  rmSync(certificateDir, { recursive: true, force: true });
});

describe(`API Pix adapter: a key the PSP's DICT marks for fraud (${backend})`, () => {
  it('answers 422 with the refusal, the withdrawal failed with its debit returned, and a high alert', async () => {
    double.restrictKey(HOLDER_CPF);
    const refused = await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'restrita-1' }));
    expect(refused).toMatchObject({ status: 422, body: { error: REFUSED } });
    expect(await balanceOf(gateway, merchant)).toBe(50_000);

    const [row] = await gateway.database.db.selectFrom('transactions').select(['id', 'status']).where('accountId', '=', merchant.accountId).execute();
    expect(row?.status).toBe('failed');
    expect(double.send(row?.id.replaceAll('-', '') ?? '')).toBeUndefined();
    const alerts = await gateway.database.db
      .selectFrom('alerts')
      .select(['kind', 'severity', 'transactionId', 'details'])
      .where('accountId', '=', merchant.accountId)
      .execute();
    expect(alerts).toEqual([
      {
        kind: 'fraud_marked_destination',
        severity: 'high',
        transactionId: row?.id,
        details: { source: 'dict', attempted: 'withdrawal', pixKeyType: 'cpf', pixKey: '***.982.247-**', recipientId: null },
      },
    ]);
    // The same externalRef names the failed withdrawal: nothing is sent again.
    expect(await withdraw(gateway, merchant, withdrawalToHolder({ externalRef: 'restrita-1' }))).toMatchObject({ status: 200, body: { status: 'failed' } });
    expect(double.violations).toEqual([]);
    expect(await gateway.ledgerProblems()).toEqual([]);
  });
});
