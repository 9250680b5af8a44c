// Object lock documents: ObjectLockConfiguration (bucket), Retention and LegalHold (object version).

import { parseIso8601 } from '../../../core/iso8601.js';
import {
  type DefaultRetention,
  type LegalHoldStatus,
  type ObjectLockConfiguration,
  type ObjectRetention,
  type RetentionMode,
  validateLegalHold,
  validateObjectLockConfiguration,
  validateRetention,
} from '../../../core/object-lock.js';
import { configRoot, optionalChild, optionalInt, optionalEnum, requiredEnum } from './config-xml.js';
import { el, openRoot, optEl } from './escape.js';
import { malformedXml, optionalLeaf } from './reader.js';

const MODES: readonly RetentionMode[] = ['GOVERNANCE', 'COMPLIANCE'];

/**
 * Parses a PutObjectLockConfiguration body: ObjectLockEnabled must be `Enabled`; a Rule, when present,
 * holds a DefaultRetention with a Mode and exactly one of Days and Years. Throws AppError
 * MissingRequestBodyError, MalformedXML, or InvalidArgument for a period out of range.
 */
export function parseObjectLockConfiguration(body: Uint8Array | string): ObjectLockConfiguration {
  const root = configRoot(body, 'ObjectLockConfiguration');
  requiredEnum(root, 'ObjectLockEnabled', ['Enabled']);
  const rule = optionalChild(root, 'Rule');
  const config: ObjectLockConfiguration = { enabled: true };
  if (rule !== undefined) {
    const retention = optionalChild(rule, 'DefaultRetention');
    if (retention === undefined) throw malformedXml();
    const defaultRetention: DefaultRetention = { mode: requiredEnum(retention, 'Mode', MODES) };
    const days = optionalInt(retention, 'Days');
    const years = optionalInt(retention, 'Years');
    if (days !== undefined) defaultRetention.days = days;
    if (years !== undefined) defaultRetention.years = years;
    config.defaultRetention = defaultRetention;
  }
  validateObjectLockConfiguration(config);
  return config;
}

/** GetObjectLockConfiguration's body. */
export function buildObjectLockConfiguration(config: ObjectLockConfiguration): string {
  let rule = '';
  const d = config.defaultRetention;
  if (d !== undefined) {
    rule = `<Rule><DefaultRetention>${el('Mode', d.mode)}${optEl('Days', d.days)}${optEl('Years', d.years)}</DefaultRetention></Rule>`;
  }
  return `${openRoot('ObjectLockConfiguration')}${el('ObjectLockEnabled', 'Enabled')}${rule}</ObjectLockConfiguration>`;
}

/**
 * Parses a PutObjectRetention body. An empty `<Retention/>` means "remove the retention" and gives
 * undefined (allowed only where canChangeRetention says so). Mode and RetainUntilDate come together.
 * Throws AppError MissingRequestBodyError, MalformedXML, or InvalidArgument for a date not after `now`.
 */
export function parseRetention(body: Uint8Array | string, now: Date): ObjectRetention | undefined {
  const root = configRoot(body, 'Retention');
  const mode = optionalEnum(root, 'Mode', MODES);
  const dateText = optionalLeaf(root, 'RetainUntilDate');
  if (mode === undefined && dateText === undefined) return undefined;
  if (mode === undefined || dateText === undefined) throw malformedXml();
  const until = parseIso8601(dateText);
  if (until === undefined) throw malformedXml();
  const retention: ObjectRetention = { mode, retainUntilDate: until.toISOString() };
  validateRetention(retention, now);
  return retention;
}

/** GetObjectRetention's body. */
export function buildRetention(retention: ObjectRetention): string {
  return `${openRoot('Retention')}${el('Mode', retention.mode)}${el('RetainUntilDate', retention.retainUntilDate)}</Retention>`;
}

/** Parses a PutObjectLegalHold body: Status ON or OFF. Throws AppError MissingRequestBodyError or MalformedXML. */
export function parseLegalHold(body: Uint8Array | string): LegalHoldStatus {
  const status = requiredEnum(configRoot(body, 'LegalHold'), 'Status', ['ON', 'OFF'] as const);
  validateLegalHold(status);
  return status;
}

/** GetObjectLegalHold's body. */
export function buildLegalHold(status: LegalHoldStatus): string {
  return `${openRoot('LegalHold')}${el('Status', status)}</LegalHold>`;
}
