// Address ranges the service never sends a request to on a user's behalf, unless the operator lists
// them in OUTBOUND_ALLOW_CIDRS: anything that reaches the service's own host, its private network or
// a cloud metadata endpoint instead of the public internet (IANA special-purpose registries).
import { BlockList, isIP } from 'node:net';

const IPV4: ReadonlyArray<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT (also Alibaba Cloud metadata)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata at 169.254.169.254)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments (Oracle Cloud metadata at 192.0.0.192)'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved and broadcast'],
];

const IPV6: ReadonlyArray<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  // IPv4-compatible and translated forms embed an IPv4 address the network may route to a private one.
  ['::', 96, 'IPv4-compatible'],
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 23, 'IETF protocol assignments (Teredo included)'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['fc00::', 7, 'unique-local (AWS metadata at fd00:ec2::254)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

interface Range {
  list: BlockList;
  why: string;
}

function ranges(entries: ReadonlyArray<[string, number, string]>, type: 'ipv4' | 'ipv6'): Range[] {
  return entries.map(([network, prefix, why]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { list, why };
  });
}

const V4 = ranges(IPV4, 'ipv4');
const V6 = ranges(IPV6, 'ipv6');
// Kept apart and checked first: node's BlockList matches every IPv4 address against a rule for
// ::ffff:0:0/96. A mapped address is refused whatever it embeds: no honest receiver publishes one,
// and a dual-stack socket connects to the embedded IPv4 address.
const [MAPPED] = ranges([['::ffff:0:0', 96, 'IPv4-mapped IPv6']], 'ipv6');

/** Why an IP address is refused, or undefined when it is a public address (or not an IP at all). */
export function refusedRange(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return V4.find((range) => range.list.check(address, 'ipv4'))?.why;
  if (family !== 6) return undefined;
  if (MAPPED!.list.check(address, 'ipv6')) return MAPPED!.why;
  return V6.find((range) => range.list.check(address, 'ipv6'))?.why;
}

/** A BlockList of the operator's CIDRs (`10.1.0.0/16`, `::1/128`, or a bare address). Throws on a malformed entry. */
export function parseCidrList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefixText, ...rest] = entry.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!family || rest.length || !/^\d+$/.test(prefixText ?? String(max)) || prefix > max) {
      throw new Error(`"${entry}" is not a CIDR (like 10.0.0.0/8 or fd00::/8)`);
    }
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}
