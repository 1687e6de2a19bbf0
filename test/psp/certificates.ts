import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The certificates of a PSP connection, made with `openssl` at test time: one CA (the PSP's and
 * ours alike, as in a test environment), the PSP's server and client certificates, the gateway's
 * client certificate and its notification listener's server certificate — and a stranger's CA and
 * client certificate, which the listener must refuse.
 */
export type PspCertificates = {
  dir: string;
  caCert: string;
  pspServerCert: string;
  pspServerKey: string;
  pspClientCert: string;
  pspClientKey: string;
  gatewayClientCert: string;
  gatewayClientKey: string;
  gatewayServerCert: string;
  gatewayServerKey: string;
  strangerCaCert: string;
  strangerClientCert: string;
  strangerClientKey: string;
};

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'pipe' });
}

function makeCa(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  return { cert, key };
}

function issue(dir: string, ca: { cert: string; key: string }, name: string, usage: 'server' | 'client'): { cert: string; key: string } {
  const key = join(dir, `${name}.key`);
  const request = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.crt`);
  const extensions = join(dir, `${name}.ext`);
  writeFileSync(extensions, usage === 'server' ? 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' : 'extendedKeyUsage=clientAuth\n');
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${name}`, '-keyout', key, '-out', request]);
  openssl(['x509', '-req', '-in', request, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '2', '-extfile', extensions, '-out', cert]);
  return { cert, key };
}

export function makePspCertificates(dir: string): PspCertificates {
  mkdirSync(dir, { recursive: true });
  const ca = makeCa(dir, 'test-ca');
  const pspServer = issue(dir, ca, 'psp-server', 'server');
  const pspClient = issue(dir, ca, 'psp-client', 'client');
  const gatewayClient = issue(dir, ca, 'gateway-client', 'client');
  const gatewayServer = issue(dir, ca, 'gateway-server', 'server');
  const stranger = makeCa(dir, 'stranger-ca');
  const strangerClient = issue(dir, stranger, 'stranger-client', 'client');
  return {
    dir,
    caCert: ca.cert,
    pspServerCert: pspServer.cert,
    pspServerKey: pspServer.key,
    pspClientCert: pspClient.cert,
    pspClientKey: pspClient.key,
    gatewayClientCert: gatewayClient.cert,
    gatewayClientKey: gatewayClient.key,
    gatewayServerCert: gatewayServer.cert,
    gatewayServerKey: gatewayServer.key,
    strangerCaCert: stranger.cert,
    strangerClientCert: strangerClient.cert,
    strangerClientKey: strangerClient.key,
  };
}
