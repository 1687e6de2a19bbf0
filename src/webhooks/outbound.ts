import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request } from 'undici';
import { errorCode } from '../platform/errors.js';

/**
 * Outbound webhook HTTP, safe against SSRF: only public unicast addresses are dialled, checked
 * when the socket connects (after DNS, on every attempt, so a name that changes its answer —
 * DNS rebinding — is caught), unless private receivers are allowed for development. Redirects
 * are not followed and at most a few KB of a response are read.
 */

/** Public unicast only: no loopback, private, link-local (cloud metadata), CGNAT, reserved, multicast, NAT64… */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** A literal IP host (brackets of IPv6 allowed) that is not public; names are checked when resolved. */
export function isNonPublicLiteral(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) && !isPublicAddress(host);
}

/** Schemes a webhook may use: https only, http too when private receivers are allowed (development). */
export const allowsProtocol = (protocol: string, allowPrivate: boolean): boolean => protocol === 'https:' || (allowPrivate && protocol === 'http:');

/** The attempt's recorded error does not say which internal address a name resolved to (tenants read it). */
class BlockedAddressError extends Error {
  readonly code = 'BLOCKED_ADDRESS';
  constructor() {
    super('destination address not allowed');
  }
}

export type Lookup = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemLookup: Lookup = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** A `lookup` for net/tls.connect that refuses names resolving to any non-public address. */
function guardedLookup(resolve: Lookup) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
      if (blocked) return callback(new BlockedAddressError(), []);
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      return first ? callback(null, first.address, first.family) : callback(new Error(`${hostname} has no address`), []);
    });
  };
}

/** `refused`: never dialled (a URL the rules forbid), so retrying cannot help. */
export type WebhookResponse = { status: number | null; error: string | null; durationMs: number; refused?: true };

export type WebhookClientOptions = {
  timeoutMs: number;
  allowPrivate: boolean;
  /** DNS resolution, replaceable in tests to play a rebinding name server. */
  lookup?: Lookup;
};

/** How much of a receiver's answer is read: only the status matters. */
const RESPONSE_BODY_LIMIT = 4096;

export class WebhookClient {
  private readonly agent: Agent;

  constructor(private readonly options: WebhookClientOptions) {
    const connectOptions = { timeout: options.timeoutMs, ...(options.allowPrivate ? {} : { lookup: guardedLookup(options.lookup ?? systemLookup) }) };
    const connect = buildConnector(connectOptions);
    this.agent = new Agent({
      // No per-origin cap (the dispatcher's concurrency bounds the sockets): an attempt never
      // spends its timeout queued for a connection.
      keepAliveTimeout: 10_000,
      connect: (connectionOptions, callback) => {
        // Literal IPs never reach `lookup`: check them here.
        if (!options.allowPrivate && isNonPublicLiteral(connectionOptions.hostname)) {
          return callback(new BlockedAddressError(), null);
        }
        return connect(connectionOptions, callback);
      },
    });
  }

  /** POSTs one delivery; never throws: the outcome is a status or an error text. */
  async post(url: string, headers: Record<string, string>, body: string): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const refusal = this.refusal(url);
    if (refusal) return { status: null, error: refusal, durationMs: 0, refused: true };
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'pix-gateway-webhooks/1', ...headers },
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      await response.body.dump({ limit: RESPONSE_BODY_LIMIT }).catch(() => undefined);
      return { status: response.statusCode, error: null, durationMs: elapsed() };
    } catch (error) {
      return { status: null, error: describeFailure(error, this.options.timeoutMs), durationMs: elapsed() };
    }
  }

  /** Why a URL is never dialled (scheme), or null. */
  refusal(url: string): string | null {
    if (URL.canParse(url) && allowsProtocol(new URL(url).protocol, this.options.allowPrivate)) return null;
    return 'only https:// URLs are delivered';
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const causes: Error[] = [];
  for (let current: unknown = error; current instanceof Error && causes.length < 5; current = current.cause) causes.push(current);
  const blocked = causes.find((cause) => cause instanceof BlockedAddressError);
  if (blocked) return `blocked: ${blocked.message}`;
  const names = causes.map((cause) => cause.name);
  if (names.includes('TimeoutError') || names.includes('HeadersTimeoutError') || names.includes('BodyTimeoutError') || names.includes('ConnectTimeoutError')) {
    return `timeout after ${timeoutMs} ms`;
  }
  const last = causes.at(-1);
  return `network error: ${errorCode(last) ?? last?.message ?? String(error)}`;
}
