import { isIPv6 } from 'node:net'

/*
 * Hibernate Validator's @Email (EmailValidator and DomainNameUtil), which the bank's service applies:
 * an empty value is valid; the address splits at its last '@'; the local part (at most 64 characters)
 * is dot-separated atoms or quoted strings; the domain is dot-separated labels of letters, digits and
 * RFC 5322 atom characters, inner dashes allowed, a single label allowed (A@LOCALHOST), labels at most 63
 * and the domain at most 255 characters, or an IP literal ([10.0.0.1], [IPv6:...]). ajv-formats' email
 * differs: it wants a dot in the domain and refuses the empty value. Matching is case-insensitive as in
 * Hibernate; the spec's upper-case rule is a separate Pattern.
 *
 * Hibernate's patterns nest quantifiers (a label is (C-*)*C+); written as Java wrote them they backtrack
 * exponentially in JavaScript on a long invalid value, so the same languages are written linearly here.
 */

const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~\\u0080-\\uFFFF-]+"
const QUOTED = '"(?:[a-z0-9!#$%&\'*.(),<>\\[\\]:; @+/=?^_`{|}~\\u0080-\\uFFFF-]|\\\\\\\\|\\\\")+"'
const LOCAL_PART = new RegExp(`^(?:${ATOM}|${QUOTED})(?:\\.(?:${ATOM}|${QUOTED}))*$`, 'i')
const LABEL_CHAR = "[a-z0-9!#$%&'*+/=?^_`{|}~\\u0080-\\uFFFF]"
const LABEL = new RegExp(`^${LABEL_CHAR}(?:[${LABEL_CHAR.slice(1, -1)}-]*${LABEL_CHAR})?$`, 'i')
const IPV4_LITERAL = /^\[\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\]$/
const IPV6_LITERAL = /^\[IPv6:([^\]]+)\]$/i

const MAX_LOCAL_PART = 64
const MAX_DOMAIN = 255
const MAX_LABEL = 63

function domainOk (domain: string): boolean {
  if (IPV4_LITERAL.test(domain)) return true
  const v6 = IPV6_LITERAL.exec(domain)
  if (v6 !== null) return isIPv6(v6[1])
  if (domain.length > MAX_DOMAIN) return false
  const labels = domain.split('.')
  return labels.every((label) => label.length <= MAX_LABEL && LABEL.test(label))
}

/** Whether Hibernate Validator's @Email accepts the value. */
export function isHibernateEmail (value: string): boolean {
  if (value === '') return true
  const at = value.lastIndexOf('@')
  if (at < 0) return false
  const local = value.slice(0, at)
  return local.length <= MAX_LOCAL_PART && LOCAL_PART.test(local) && domainOk(value.slice(at + 1))
}
