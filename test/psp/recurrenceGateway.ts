import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_CHARGE_FEES, startGateway, type Gateway, type Merchant } from '../helpers/gateway.js';
import { makePspCertificates } from './certificates.js';
import { CLIENT_ID, CLIENT_SECRET, startPspDouble, type PspDouble } from './double.js';

const PIX_KEY = 'recebimentos@gateway.example';

/**
 * A gateway whose provider is the API Pix adapter, against the PSP double (mTLS, OAuth, its
 * notification listener registered there), set up for Pix Automático: the operator's receiver
 * account is configured and the double's calendar follows the gateway's clock. One merchant
 * without charge fees.
 */
export async function startRecurrenceGateway(label: string): Promise<{ double: PspDouble; gateway: Gateway; merchant: Merchant; close: () => Promise<void> }> {
  const certificateDir = mkdtempSync(join(tmpdir(), `psp-${label}-`));
  const certificates = makePspCertificates(certificateDir);
  const started: { gateway?: Gateway } = {};
  // The double's calendar follows the gateway's clock (its cobr window, a start not in the past).
  const double = await startPspDouble(certificates, { pixKey: PIX_KEY, now: () => started.gateway?.clock.now() ?? new Date() });
  const gateway = await startGateway({
    PIX_PROVIDER: 'apipix',
    PSP_BASE_URL: double.baseUrl,
    PSP_TOKEN_URL: double.tokenUrl,
    PSP_CLIENT_ID: CLIENT_ID,
    PSP_CLIENT_SECRET: CLIENT_SECRET,
    PSP_CERT_FILE: certificates.gatewayClientCert,
    PSP_KEY_FILE: certificates.gatewayClientKey,
    PSP_CA_FILE: certificates.caCert,
    PSP_PIX_KEY: PIX_KEY,
    PSP_RECEIVER_ACCOUNT: 'CORRENTE:0001:1234567',
    PSP_TIMEOUT_MS: '1000',
    PSP_WEBHOOK_PORT: '0',
    PSP_WEBHOOK_CERT_FILE: certificates.gatewayServerCert,
    PSP_WEBHOOK_KEY_FILE: certificates.gatewayServerKey,
    PSP_WEBHOOK_CLIENT_CA_FILE: certificates.caCert,
  });
  const listening = await gateway.services.providerInbound[0]?.listen();
  if (!listening) throw new Error('no notification listener');
  double.setWebhook(listening);
  started.gateway = gateway;
  return {
    double,
    gateway,
    merchant: await gateway.createMerchant(NO_CHARGE_FEES),
    close: async () => {
      await gateway.close();
      await double.close();
      rmSync(certificateDir, { recursive: true, force: true });
    },
  };
}
