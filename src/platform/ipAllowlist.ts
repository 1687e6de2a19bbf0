import ipaddr from 'ipaddr.js';

type Rule = { kind: 'ipv4' | 'ipv6'; matches(address: ipaddr.IPv4 | ipaddr.IPv6): boolean };

function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(text)) return null;
  // ::ffff:1.2.3.4 (an IPv4 client on a dual-stack socket) is that IPv4 address.
  return ipaddr.process(text);
}

function parseRule(entry: string): Rule | null {
  const text = entry.trim();
  if (text.includes('/')) {
    try {
      const [range, bits] = ipaddr.parseCIDR(text);
      return { kind: range.kind(), matches: (address) => address.kind() === range.kind() && address.match(range, bits) };
    } catch {
      return null;
    }
  }
  const single = parseAddress(text);
  if (!single) return null;
  const normalized = single.toNormalizedString();
  return { kind: single.kind(), matches: (address) => address.kind() === single.kind() && address.toNormalizedString() === normalized };
}

/** The first entry that is neither an IP nor a CIDR, if any. */
export function findInvalidAllowlistEntry(entries: string[]): string | undefined {
  return entries.find((entry) => parseRule(entry) === null);
}

/** Compiles a list once; an empty list allows everyone. */
export function compileAllowlist(entries: string[]): (ip: string) => boolean {
  const rules = entries.map(parseRule).filter((rule): rule is Rule => rule !== null);
  if (rules.length === 0) return () => true;
  return (ip) => {
    const address = parseAddress(ip);
    return address !== null && rules.some((rule) => rule.matches(address));
  };
}
