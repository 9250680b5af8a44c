// The ACL document Store answers (the owner with FULL_CONTROL, nothing else) and small fixed documents
// (PolicyStatus, OwnershipControls, NotificationConfiguration).

import { el, openRoot } from './escape.js';
import type { Owner } from './escape.js';

export function buildAccessControlPolicy(owner: Owner): string {
  return (
    `${openRoot('AccessControlPolicy')}<Owner>${el('ID', owner.id)}${owner.displayName ? el('DisplayName', owner.displayName) : ''}</Owner>` +
    '<AccessControlList><Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser">' +
    `${el('ID', owner.id)}${owner.displayName ? el('DisplayName', owner.displayName) : ''}</Grantee>` +
    '<Permission>FULL_CONTROL</Permission></Grant></AccessControlList></AccessControlPolicy>'
  );
}

export interface SimpleElements {
  [name: string]: string | SimpleElements;
}

/** `<Root xmlns=..>` with nested elements from a plain object (names are ours, values escaped). */
export function buildSimpleDocument(root: string, children: SimpleElements): string {
  const render = (nodes: SimpleElements): string =>
    Object.entries(nodes)
      .map(([name, value]) => (typeof value === 'string' ? el(name, value) : `<${name}>${render(value)}</${name}>`))
      .join('');
  return `${openRoot(root)}${render(children)}</${root}>`;
}
