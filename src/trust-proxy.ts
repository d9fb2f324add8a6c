import { isIP, isIPv4 } from 'node:net'

/*
 * SANDBOX_TRUST_PROXY, read into what Fastify's trustProxy (proxy-addr) takes: a number of hops, or addresses,
 * CIDR ranges and proxy-addr's names of ranges. Read here item by item (no pattern built from what is given), so
 * that a mistake stops the start with a message naming it, instead of a proxy silently not trusted. `true` (trust
 * every hop) is not offered: it would take a client's own X-Forwarded-For for its address, which anyone can forge.
 * A number of hops is given to Fastify as a function that trusts that many hops (as Express and Fastify 4 read
 * a number): Fastify 5 reads a bare number as trusting none, since a count cannot tell a proxy from a client that
 * connects directly. So a hop count suits a sandbox that only its proxies can reach (a private network, a
 * Kubernetes Service); where clients could connect directly, name the proxies' addresses.
 */

/** proxy-addr's names for ranges: 127.0.0.1/8 and ::1; 169.254.0.0/16 and fe80::/10; 10/8, 172.16/12, 192.168/16 and fc00::/7. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])
const MAX_HOPS = 32

const isDigits = (text: string): boolean => text.length > 0 && text.length <= 3 && [...text].every((c) => c >= '0' && c <= '9')

/** Why one item is no address, range or range name; undefined when it is one. */
function itemError (item: string): string | undefined {
  if (RANGE_NAMES.has(item) || isIP(item) !== 0) return undefined
  const slash = item.indexOf('/')
  if (slash < 0) return `"${item}" is no IP address, CIDR range or one of ${[...RANGE_NAMES].join(', ')}`
  const address = item.slice(0, slash)
  const prefix = item.slice(slash + 1)
  const version = isIP(address)
  if (version === 0) return `"${item}": "${address}" is no IP address`
  // a prefix length, or (IPv4) a netmask such as 255.255.255.0
  if (isDigits(prefix) && Number(prefix) <= (version === 4 ? 32 : 128)) return undefined
  if (version === 4 && isIPv4(prefix)) return undefined
  return `"${item}": the prefix length must be 0 to ${version === 4 ? 32 : 128}`
}

/** Fastify's trustProxy for SANDBOX_TRUST_PROXY (false when unset); throws an Error saying what is wrong in it. */
export function trustProxyOf (value: string | undefined): ((address: string, hop: number) => boolean) | string[] | false {
  if (value === undefined) return false
  const text = value.trim()
  if (isDigits(text)) {
    const hops = Number(text)
    if (hops < 1 || hops > MAX_HOPS) throw new Error(`a number of hops must be 1 to ${MAX_HOPS}`)
    // hop 0 is the connection's peer, hop 1 the address it forwarded, and so on
    return (_address, hop) => hop < hops
  }
  const items = text.split(',').map((item) => item.trim())
  for (const item of items) {
    const error = itemError(item)
    if (error !== undefined) throw new Error(`${error}; expected addresses or CIDR ranges separated by commas, or a number of hops`)
  }
  return items
}
