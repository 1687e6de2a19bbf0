import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import Fastify from 'fastify';
import type { PspSettings } from '../../config.js';
import { messages } from '../../messages.js';

/** Which callback a notification came by: received PIX (`/pix`), recurrences (`/rec`, PUT /webhookrec) or cycles' charges (`/cobr`, PUT /webhookcobr). */
export type NotificationKind = 'pix' | 'rec' | 'cobr';

type Acknowledger = { acknowledge(body: unknown, kind: NotificationKind): boolean };

/**
 * The PSP's notification listener (DESIGN.md §12): HTTPS on a port of its own that completes the
 * TLS handshake only with a client certificate issued by PSP_WEBHOOK_CLIENT_CA_FILE — the PSP's.
 * Nothing else is served there. The PSP is answered at once; each PIX is read back afterwards.
 */
export async function startNotificationListener(
  webhook: NonNullable<PspSettings['webhook']>,
  /** Where the PSP's webhooks are registered: `https://<host>:<port><base>`; API Pix appends `/pix`, `/rec` or `/cobr`. */
  base: string,
  inbound: Acknowledger,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({
    https: {
      cert: readFileSync(webhook.certFile),
      key: readFileSync(webhook.keyFile),
      ca: readFileSync(webhook.clientCaFile),
      requestCert: true,
      rejectUnauthorized: true,
    },
    bodyLimit: 1024 * 1024,
    logger: false,
  });
  app.addHook('onRequest', async (request, reply) => {
    // The handshake already refused anyone else; this stays true if the TLS options ever change.
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- an https server's sockets are TLS sockets
    if (!(request.raw.socket as TLSSocket).authorized) return reply.code(403).send({ error: messages.pspClientCertificateRequired });
  });
  for (const kind of ['pix', 'rec', 'cobr'] as const) {
    app.post(`${base}/${kind}`, async (request, reply) => {
      if (!inbound.acknowledge(request.body, kind)) return reply.code(400).send({ error: messages.pspNotificationInvalid });
      return reply.code(200).send({});
    });
  }
  await app.listen({ port: webhook.port, host: '0.0.0.0' });
  const address = app.server.address();
  const port = address && typeof address !== 'string' ? address.port : webhook.port;
  return { url: `https://localhost:${port}${base}`, close: () => app.close() };
}
