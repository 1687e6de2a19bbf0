import { resolve } from 'node:path';
import Fastify from 'fastify';
import { makePspCertificates } from './certificates.js';
import { CLIENT_ID, CLIENT_SECRET, startPspDouble } from './double.js';

/**
 * `npm run psp-double [folder]`: the test suite's API Pix double as a PSP to try the gateway with
 * PIX_PROVIDER=apipix (docs/providers.md, "Try-out"). Makes certificates in the folder, starts the
 * PSP on https://127.0.0.1:4443 (refunds and withdrawals settle by themselves after 2 s) and a
 * small control API on http://127.0.0.1:4010 that plays the payers and the PSP's own decisions.
 */
const folder = resolve(process.argv[2] ?? 'psp-double');
const PIX_KEY = 'recebimentos@gateway.example';
const WEBHOOK_PORT = Number(process.env.PSP_WEBHOOK_PORT ?? 8443);

const certificates = makePspCertificates(folder);
const double = await startPspDouble(certificates, { pixKey: PIX_KEY, port: 4443, autoSettleMs: 2000 });
double.setWebhook(`https://localhost:${WEBHOOK_PORT}/apipix`);

const hex = (id: string) => id.replaceAll('-', '');
const control = Fastify({ logger: false });
const txidOf = (request: { params: unknown }) => hex((request.params as { transactionId: string }).transactionId);
control.post('/pay/:transactionId', async (request, reply) => {
  const body = (request.body ?? {}) as { amountCents?: number };
  if (!double.cob(txidOf(request))) return reply.code(404).send({ error: 'no such charge at the PSP' });
  return { endToEndId: await double.pay(txidOf(request), body) };
});
control.post('/remove/:transactionId', async (request, reply) => {
  if (!double.cob(txidOf(request))) return reply.code(404).send({ error: 'no such charge at the PSP' });
  double.removeCharge(txidOf(request));
  return { removed: true };
});
control.post('/med/:transactionId', async (request, reply) => {
  const body = (request.body ?? {}) as { amountCents?: number; natureza?: 'MED_FRAUDE' | 'MED_OPERACIONAL' };
  const pix = double.pixOfCharge(txidOf(request));
  if (!pix) return reply.code(404).send({ error: 'no PIX paid this charge' });
  const rtrId = await double.injectMed(pix.endToEndId, body.amountCents ?? Math.round(Number(pix.valor) * 100), body.natureza ?? 'MED_FRAUDE');
  return { rtrId };
});
await control.listen({ port: 4010, host: '127.0.0.1' });

process.stdout.write(`
API Pix PSP double on ${double.baseUrl} (certificates in ${folder}); control API on http://127.0.0.1:4010

Start the gateway with:
  PIX_PROVIDER=apipix PSP_BASE_URL=${double.baseUrl} PSP_TOKEN_URL=${double.tokenUrl} \\
  PSP_CLIENT_ID=${CLIENT_ID} PSP_CLIENT_SECRET=${CLIENT_SECRET} PSP_PIX_KEY=${PIX_KEY} \\
  PSP_CERT_FILE=${certificates.gatewayClientCert} PSP_KEY_FILE=${certificates.gatewayClientKey} PSP_CA_FILE=${certificates.caCert} \\
  PSP_WEBHOOK_PORT=${WEBHOOK_PORT} PSP_WEBHOOK_CERT_FILE=${certificates.gatewayServerCert} PSP_WEBHOOK_KEY_FILE=${certificates.gatewayServerKey} \\
  PSP_WEBHOOK_CLIENT_CA_FILE=${certificates.caCert} PSP_POLL_INTERVAL_MS=5000 npm start

Pay a charge:            curl -X POST http://127.0.0.1:4010/pay/<transactionId>
A MED return of it:      curl -X POST http://127.0.0.1:4010/med/<transactionId> -H 'Content-Type: application/json' -d '{"amountCents": 300}'
The PSP removes a charge: curl -X POST http://127.0.0.1:4010/remove/<transactionId>
`);

const stop = async () => {
  await control.close();
  await double.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
