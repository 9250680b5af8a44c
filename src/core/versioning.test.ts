import { describe, expect, it } from 'vitest';
import {
  NULL_VERSION_ID,
  type VersioningConfiguration,
  simpleDeletePlan,
  validateVersioningChange,
  validateVersioningConfiguration,
  versionIdForWrite,
  writeReplacesNullVersion,
} from './versioning.js';
import { codeOf } from '../../test/helpers/error-code.js';

let counter = 0;
const newId = (): string => `v${++counter}`;

describe('versionIdForWrite', () => {
  it('gives a new id only when versioning is Enabled, and null otherwise', () => {
    expect(versionIdForWrite('Enabled', () => 'fresh')).toBe('fresh');
    expect(versionIdForWrite('Unversioned', newId)).toBe(NULL_VERSION_ID);
    expect(versionIdForWrite('Suspended', newId)).toBe('null');
  });

  it('calls the generator once per Enabled write', () => {
    const before = counter;
    versionIdForWrite('Enabled', newId);
    versionIdForWrite('Suspended', newId);
    expect(counter).toBe(before + 1);
  });
});

describe('null version rules', () => {
  it('replaces the null version on writes unless Enabled', () => {
    expect(writeReplacesNullVersion('Unversioned')).toBe(true);
    expect(writeReplacesNullVersion('Suspended')).toBe(true);
    expect(writeReplacesNullVersion('Enabled')).toBe(false);
  });

  it('plans a simple delete per state', () => {
    expect(simpleDeletePlan('Unversioned', () => 'x')).toEqual({
      removeNullVersion: true,
      deleteMarkerVersionId: undefined,
    });
    expect(simpleDeletePlan('Enabled', () => 'marker-1')).toEqual({
      removeNullVersion: false,
      deleteMarkerVersionId: 'marker-1',
    });
    expect(simpleDeletePlan('Suspended', () => 'x')).toEqual({
      removeNullVersion: true,
      deleteMarkerVersionId: 'null',
    });
  });
});

describe('validation', () => {
  it('accepts Enabled and Suspended, refuses anything else with MalformedXML', () => {
    expect(codeOf(() => validateVersioningConfiguration({ status: 'Enabled' }))).toBeUndefined();
    expect(codeOf(() => validateVersioningConfiguration({ status: 'Suspended' }))).toBeUndefined();
    const bad = JSON.parse('{"status":"Disabled"}') as VersioningConfiguration;
    expect(codeOf(() => validateVersioningConfiguration(bad))).toBe('MalformedXML');
  });

  it('refuses suspending versioning on an object lock bucket with InvalidBucketState', () => {
    expect(codeOf(() => validateVersioningChange({ next: 'Suspended', objectLockEnabled: true }))).toBe(
      'InvalidBucketState',
    );
    expect(codeOf(() => validateVersioningChange({ next: 'Enabled', objectLockEnabled: true }))).toBeUndefined();
    expect(codeOf(() => validateVersioningChange({ next: 'Suspended', objectLockEnabled: false }))).toBeUndefined();
  });
});
