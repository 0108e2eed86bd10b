import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook is never delivered to (issue 48: no private, loopback or link-local
 * address, also through DNS answers): RFC 6890's special-purpose ranges, so a registered URL
 * cannot reach the account's own network, the instance metadata service (169.254.169.254,
 * fd00:ec2::254) or the function itself. IPv6 forms that embed an IPv4 address (mapped, NAT64,
 * 6to4, Teredo) are refused whole rather than unpacked. (IPv4-mapped addresses are refused by
 * their prefix: a BlockList rule for `::ffff:0:0/96` would also match every IPv4 address.)
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP literal) is a public unicast address a webhook may reach. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && /^::ffff:/i.test(address)) return false;
  return !BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
