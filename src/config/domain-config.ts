// STORE_DOMAIN: the DNS names under which `<bucket>.<name>` addresses a bucket (virtual-hosted–style requests,
// docs/decisions.md "Virtual-host addressing (issue 28)"). Parsed here; http/s3/virtual-hosts.ts matches Host against
// it.

import { isIP } from 'node:net';

// RFC 1123 labels: letters, digits and inner hyphens, at most 63 characters each.
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The names of STORE_DOMAIN, trimmed and lower-cased (DNS is case-insensitive); empty when it is unset. */
export function domainList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
}

/**
 * The entries of STORE_DOMAIN that are not DNS names: a port (Host is matched with its port stripped, so a port here
 * could never match), a scheme or path, an IP address (which has no subdomains), an empty label or a trailing dot.
 */
export function malformedDomains(value: string): string[] {
  return domainList(value).filter((name) => {
    if (name.length > 253 || isIP(name) !== 0) return true;
    return !name.split('.').every((label) => LABEL.test(label));
  });
}
