// The NotificationConfiguration document of Put/GetBucketNotificationConfiguration: Queue, Topic and CloudFunction
// configurations, each with an optional Id, one ARN, one or more Event and an optional Filter.S3Key of FilterRules.

import { AppError } from '../../../core/errors.js';
import type {
  NotificationConfiguration,
  NotificationRule,
  NotificationRuleKind,
} from '../../../core/notification-config.js';
import { configRoot, containerChildren, optionalChild } from './config-xml.js';
import { childrenNamed, malformedXml, optionalLeaf, requiredLeaf, type XmlElement } from './reader.js';
import { el, openRoot } from './escape.js';

const KINDS: readonly NotificationRuleKind[] = ['Queue', 'Topic', 'CloudFunction'];

function invalidFilter(message: string, value: string): AppError {
  return new AppError('InvalidArgument', { message, details: { ArgumentName: 'FilterRule', ArgumentValue: value } });
}

/** Filter.S3Key's rules: at most one prefix and one suffix, named case-insensitively as AWS accepts them. */
function parseFilter(conf: XmlElement): Pick<NotificationRule, 'prefix' | 'suffix'> {
  const filter = optionalChild(conf, 'Filter');
  const s3Key = filter === undefined ? undefined : optionalChild(filter, 'S3Key');
  if (s3Key === undefined) return {};
  const out: { prefix?: string; suffix?: string } = {};
  for (const rule of containerChildren(s3Key, 'FilterRule')) {
    const name = requiredLeaf(rule, 'Name').toLowerCase();
    const value = optionalLeaf(rule, 'Value') ?? '';
    if (name !== 'prefix' && name !== 'suffix') {
      throw invalidFilter('filter rule name must be either prefix or suffix', name);
    }
    if (out[name] !== undefined) throw invalidFilter(`Cannot specify more than one ${name} rule in a filter.`, name);
    out[name] = value;
  }
  return out;
}

let generated = 0;
/** AWS gives a configuration without an Id one of its own. */
function generatedId(): string {
  generated = (generated + 1) % 1_000_000;
  return `store-${Date.now().toString(36)}-${generated.toString(36)}`;
}

/**
 * Parses the PUT body. Throws MissingRequestBodyError, MalformedXML, InvalidArgument (filter rules),
 * NotImplemented.
 */
export function parseNotificationConfiguration(body: Uint8Array | string): NotificationConfiguration {
  const root = configRoot(body, 'NotificationConfiguration');
  if (childrenNamed(root, 'EventBridgeConfiguration').length > 0) {
    throw new AppError('NotImplemented', { message: 'Store does not deliver to Amazon EventBridge.' });
  }
  const rules: NotificationRule[] = [];
  for (const kind of KINDS) {
    for (const conf of containerChildren(root, `${kind}Configuration`)) {
      const events = childrenNamed(conf, 'Event').map((e) => {
        if (e.children.length > 0) throw malformedXml();
        return e.text.trim();
      });
      if (events.length === 0) throw malformedXml();
      const id = optionalLeaf(conf, 'Id');
      rules.push({
        id: id === undefined || id === '' ? generatedId() : id,
        kind,
        arn: requiredLeaf(conf, kind).trim(),
        events,
        ...parseFilter(conf),
      });
    }
  }
  return { rules };
}

function filterXml(rule: NotificationRule): string {
  if (rule.prefix === undefined && rule.suffix === undefined) return '';
  let rules = '';
  if (rule.prefix !== undefined) rules += `<FilterRule>${el('Name', 'prefix')}${el('Value', rule.prefix)}</FilterRule>`;
  if (rule.suffix !== undefined) rules += `<FilterRule>${el('Name', 'suffix')}${el('Value', rule.suffix)}</FilterRule>`;
  return `<Filter><S3Key>${rules}</S3Key></Filter>`;
}

/** GetBucketNotificationConfiguration's body: Queue, then Topic, then CloudFunction configurations. */
export function buildNotificationConfiguration(config: NotificationConfiguration | undefined): string {
  let out = openRoot('NotificationConfiguration');
  for (const kind of KINDS) {
    for (const rule of config?.rules.filter((r) => r.kind === kind) ?? []) {
      out += `<${kind}Configuration>${el('Id', rule.id)}${filterXml(rule)}${el(kind, rule.arn)}`;
      for (const event of rule.events) out += el('Event', event);
      out += `</${kind}Configuration>`;
    }
  }
  return `${out}</NotificationConfiguration>`;
}
