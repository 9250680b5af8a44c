// The lifecycle editor's form model and its translation to and from the admin API's rules (docs/admin-buckets-
// objects.md, LifecycleRule). Numbers are kept as the text the admin typed until they are checked. Pure.

export const STORAGE_CLASSES = ['STANDARD_IA', 'GLACIER', 'DEEP_ARCHIVE'] as const;

export interface Tag {
  key: string;
  value: string;
}

export interface LifecycleRule {
  id?: string;
  status: 'Enabled' | 'Disabled';
  prefix?: string;
  filter?: { prefix?: string; tags?: Tag[]; objectSizeGreaterThan?: number; objectSizeLessThan?: number };
  expiration?: { days?: number; date?: string; expiredObjectDeleteMarker?: boolean };
  transitions?: Array<{ days?: number; date?: string; storageClass: string }>;
  noncurrentVersionExpiration?: { noncurrentDays: number; newerNoncurrentVersions?: number };
  noncurrentVersionTransitions?: Array<{
    noncurrentDays: number;
    newerNoncurrentVersions?: number;
    storageClass: string;
  }>;
  abortIncompleteMultipartUpload?: { daysAfterInitiation: number };
}

export interface TransitionForm {
  days: string;
  storageClass: string;
}

export interface RuleForm {
  id: string;
  enabled: boolean;
  prefix: string;
  tags: Tag[];
  minSize: string;
  maxSize: string;
  expireDays: string;
  expireDeleteMarkers: boolean;
  transitions: TransitionForm[];
  noncurrentDays: string;
  keepNewer: string;
  noncurrentTransitions: TransitionForm[];
  abortDays: string;
}

export function emptyRule(): RuleForm {
  return {
    id: '',
    enabled: true,
    prefix: '',
    tags: [],
    minSize: '',
    maxSize: '',
    expireDays: '',
    expireDeleteMarkers: false,
    transitions: [],
    noncurrentDays: '',
    keepNewer: '',
    noncurrentTransitions: [],
    abortDays: '',
  };
}

const text = (n: number | undefined): string => (n === undefined ? '' : String(n));

/** A stored rule as a form. Dates are not editable in the form: a rule with an expiration date keeps it as days ''. */
export function ruleToForm(rule: LifecycleRule): RuleForm {
  return {
    id: rule.id ?? '',
    enabled: rule.status === 'Enabled',
    prefix: rule.filter?.prefix ?? rule.prefix ?? '',
    tags: rule.filter?.tags ?? [],
    minSize: text(rule.filter?.objectSizeGreaterThan),
    maxSize: text(rule.filter?.objectSizeLessThan),
    expireDays: text(rule.expiration?.days),
    expireDeleteMarkers: rule.expiration?.expiredObjectDeleteMarker ?? false,
    transitions: (rule.transitions ?? []).map((t) => ({ days: text(t.days), storageClass: t.storageClass })),
    noncurrentDays: text(rule.noncurrentVersionExpiration?.noncurrentDays),
    keepNewer: text(rule.noncurrentVersionExpiration?.newerNoncurrentVersions),
    noncurrentTransitions: (rule.noncurrentVersionTransitions ?? []).map((t) => ({
      days: text(t.noncurrentDays),
      storageClass: t.storageClass,
    })),
    abortDays: text(rule.abortIncompleteMultipartUpload?.daysAfterInitiation),
  };
}

/** A whole number >= min from a form field, '' = absent; throws a message naming the field otherwise. */
function whole(value: string, field: string, min = 1): number | undefined {
  const t = value.trim();
  if (t === '') return undefined;
  if (!/^\d+$/.test(t) || Number(t) < min) throw new Error(`${field}: enter a whole number of at least ${min}.`);
  return Number(t);
}

/** The API rule for a form, or an Error naming the first field that is wrong. */
export function formToRule(form: RuleForm, index: number): LifecycleRule {
  const label = `Rule ${index + 1}`;
  const minSize = whole(form.minSize, `${label}, minimum size`, 0);
  const maxSize = whole(form.maxSize, `${label}, maximum size`, 1);
  if (minSize !== undefined && maxSize !== undefined && maxSize <= minSize)
    throw new Error(`${label}: the maximum size must be above the minimum.`);
  const tags = form.tags.filter((t) => t.key.trim() !== '');
  const rule: LifecycleRule = {
    status: form.enabled ? 'Enabled' : 'Disabled',
    filter: {
      ...(form.prefix !== '' ? { prefix: form.prefix } : {}),
      ...(tags.length > 0 ? { tags } : {}),
      ...(minSize !== undefined ? { objectSizeGreaterThan: minSize } : {}),
      ...(maxSize !== undefined ? { objectSizeLessThan: maxSize } : {}),
    },
  };
  if (form.id.trim() !== '') rule.id = form.id.trim();
  const expireDays = whole(form.expireDays, `${label}, expire after days`);
  if (expireDays !== undefined && form.expireDeleteMarkers) {
    throw new Error(
      `${label}: expiring current versions and removing expired delete markers cannot be combined in one rule.`,
    );
  }
  if (expireDays !== undefined) rule.expiration = { days: expireDays };
  else if (form.expireDeleteMarkers) rule.expiration = { expiredObjectDeleteMarker: true };
  const transitions = form.transitions.map((t, i) => ({
    days: whole(t.days, `${label}, transition ${i + 1} days`, 0) ?? 0,
    storageClass: t.storageClass,
  }));
  if (transitions.length > 0) rule.transitions = transitions;
  const noncurrentDays = whole(form.noncurrentDays, `${label}, noncurrent versions expire after days`);
  const keepNewer = whole(form.keepNewer, `${label}, noncurrent versions to keep`);
  if (keepNewer !== undefined && noncurrentDays === undefined)
    throw new Error(`${label}: "noncurrent versions to keep" needs "expire after days".`);
  if (noncurrentDays !== undefined) {
    rule.noncurrentVersionExpiration = {
      noncurrentDays,
      ...(keepNewer !== undefined ? { newerNoncurrentVersions: keepNewer } : {}),
    };
  }
  const nct = form.noncurrentTransitions.map((t, i) => ({
    noncurrentDays: whole(t.days, `${label}, noncurrent transition ${i + 1} days`) ?? 1,
    storageClass: t.storageClass,
  }));
  if (nct.length > 0) rule.noncurrentVersionTransitions = nct;
  const abortDays = whole(form.abortDays, `${label}, abort incomplete uploads after days`);
  if (abortDays !== undefined) rule.abortIncompleteMultipartUpload = { daysAfterInitiation: abortDays };
  if (
    !rule.expiration &&
    !rule.transitions &&
    !rule.noncurrentVersionExpiration &&
    !rule.noncurrentVersionTransitions &&
    !rule.abortIncompleteMultipartUpload
  ) {
    throw new Error(
      `${label}: choose at least one action (expire, transition, noncurrent versions or incomplete uploads).`,
    );
  }
  return rule;
}

/** One sentence per rule for the list: "objects under logs/ expire after 30 days". */
export function describeRule(rule: LifecycleRule): string {
  const scope = rule.filter?.prefix ?? rule.prefix;
  const parts: string[] = [];
  if (rule.expiration?.days !== undefined) parts.push(`expire after ${rule.expiration.days} days`);
  if (rule.expiration?.date) parts.push(`expire on ${rule.expiration.date.slice(0, 10)}`);
  if (rule.expiration?.expiredObjectDeleteMarker) parts.push('remove expired delete markers');
  for (const t of rule.transitions ?? []) parts.push(`move to ${t.storageClass} after ${t.days ?? t.date} days`);
  if (rule.noncurrentVersionExpiration)
    parts.push(`noncurrent versions expire after ${rule.noncurrentVersionExpiration.noncurrentDays} days`);
  if (rule.abortIncompleteMultipartUpload)
    parts.push(`abort incomplete uploads after ${rule.abortIncompleteMultipartUpload.daysAfterInitiation} days`);
  return `${scope ? `Objects under “${scope}”` : 'Every object'}: ${parts.join(', ') || 'no action'}${rule.status === 'Disabled' ? ' (disabled)' : ''}.`;
}
