// ACL documents (AccessControlPolicy both ways) and small fixed documents (PolicyStatus, NotificationConfiguration).

import { AppError } from '../../../core/errors.js';
import { GROUP_URIS, PERMISSIONS, type Acl, type AclPermission, type GranteeRef } from '../../../core/acl/acl.js';
import { el, openRoot } from './escape.js';
import type { Owner } from './escape.js';
import { childrenNamed, malformedXml, optionalLeaf, readXml } from './reader.js';

const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

function ownerEls(owner: Owner): string {
  return `${el('ID', owner.id)}${owner.displayName ? el('DisplayName', owner.displayName) : ''}`;
}

/** The AccessControlPolicy of an ACL (default: the owner's FULL_CONTROL alone). */
export function buildAccessControlPolicy(owner: Owner, acl?: Acl): string {
  const grants = (acl?.grants ?? [{ grantee: { kind: 'owner' as const }, permission: 'FULL_CONTROL' as const }]).map(
    (g) => {
      const grantee =
        g.grantee.kind === 'owner'
          ? `<Grantee ${XSI} xsi:type="CanonicalUser">${ownerEls(owner)}</Grantee>`
          : `<Grantee ${XSI} xsi:type="Group">${el('URI', GROUP_URIS[g.grantee.group])}</Grantee>`;
      return `<Grant>${grantee}${el('Permission', g.permission)}</Grant>`;
    },
  );
  return `${openRoot('AccessControlPolicy')}<Owner>${ownerEls(owner)}</Owner><AccessControlList>${grants.join('')}</AccessControlList></AccessControlPolicy>`;
}

/** One grant of a PutBucketAcl / PutObjectAcl body, its grantee not yet resolved. */
export interface RequestedGrant {
  readonly grantee: GranteeRef;
  readonly permission: AclPermission;
}

/**
 * The grants of an AccessControlPolicy body. Throws MalformedXML for another document, MalformedACLError for a grant
 * without one grantee (ID, URI or EmailAddress) or with an unknown permission.
 */
export function parseAccessControlPolicy(body: Buffer): RequestedGrant[] {
  const root = readXml(body);
  if (!root || root.name !== 'AccessControlPolicy') throw malformedXml();
  const grants = childrenNamed(root, 'AccessControlList').flatMap((list) => childrenNamed(list, 'Grant'));
  return grants.map((grant): RequestedGrant => {
    const permission = optionalLeaf(grant, 'Permission');
    const granteeEl = childrenNamed(grant, 'Grantee');
    if (granteeEl.length !== 1 || !(PERMISSIONS as readonly string[]).includes(permission ?? ''))
      throw new AppError('MalformedACLError');
    const g = granteeEl[0]!;
    const refs: GranteeRef[] = [];
    const id = optionalLeaf(g, 'ID');
    const uri = optionalLeaf(g, 'URI');
    const email = optionalLeaf(g, 'EmailAddress');
    if (id !== undefined) refs.push({ type: 'id', value: id.trim() });
    if (uri !== undefined) refs.push({ type: 'uri', value: uri.trim() });
    if (email !== undefined) refs.push({ type: 'emailAddress', value: email.trim() });
    if (refs.length !== 1) throw new AppError('MalformedACLError');
    return { grantee: refs[0]!, permission: permission as AclPermission };
  });
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
