// Every page of the console, as a walk visits it: the route (loaded with a hard navigation, so each one also proves
// the history fallback and the session's refresh on load) and, for states behind a click (a dialog, a tab), the
// clicks that open them.

import type { Page } from 'playwright-core';
import type { Seeded } from './console-seed.js';

export interface ConsolePage {
  name: string;
  route: (s: Seeded) => string;
  /** Clicks that bring the page to the state to check (after it has loaded). */
  open?: (page: Page) => Promise<void>;
  /** Only for a full admin (the control that opens it does not exist for a read-only admin). */
  adminOnly?: boolean;
  /** Whether a full admin sees at least one write control here (the read-only walk's contrast check). */
  hasWrites?: boolean;
}

const objectTab =
  (tab: string) =>
  async (page: Page): Promise<void> => {
    await page.getByRole('dialog').getByRole('tab', { name: tab }).click();
  };

export const CONSOLE_PAGES: ConsolePage[] = [
  { name: 'dashboard', route: () => '' },
  { name: 'buckets', route: () => 'buckets', hasWrites: true },
  {
    name: 'bucket-create-dialog',
    route: () => 'buckets',
    adminOnly: true,
    open: async (p) => {
      await p.getByRole('button', { name: 'Create bucket' }).click();
    },
  },
  { name: 'bucket-overview', route: (s) => `buckets/${s.bucket}` },
  { name: 'bucket-versioning', route: (s) => `buckets/${s.bucket}?tab=versioning`, hasWrites: true },
  { name: 'bucket-object-lock', route: (s) => `buckets/${s.lockedBucket}?tab=versioning`, hasWrites: true },
  { name: 'bucket-encryption', route: (s) => `buckets/${s.bucket}?tab=encryption`, hasWrites: true },
  { name: 'bucket-lifecycle', route: (s) => `buckets/${s.bucket}?tab=lifecycle`, hasWrites: true },
  { name: 'bucket-cors', route: (s) => `buckets/${s.bucket}?tab=cors`, hasWrites: true },
  { name: 'bucket-policy', route: (s) => `buckets/${s.bucket}?tab=policy`, hasWrites: true },
  { name: 'bucket-tags', route: (s) => `buckets/${s.bucket}?tab=tags`, hasWrites: true },
  { name: 'bucket-quota', route: (s) => `buckets/${s.bucket}?tab=quota`, hasWrites: true },
  { name: 'bucket-events', route: (s) => `buckets/${s.bucket}?tab=events`, hasWrites: true },
  { name: 'bucket-uploads', route: (s) => `buckets/${s.bucket}?tab=uploads`, hasWrites: true },
  { name: 'objects', route: (s) => `buckets/${s.bucket}/browse`, hasWrites: true },
  { name: 'objects-folder', route: (s) => `buckets/${s.bucket}/browse?prefix=2030%2F`, hasWrites: true },
  { name: 'objects-versions', route: (s) => `buckets/${s.bucket}/browse?view=versions`, hasWrites: true },
  {
    name: 'object-overview',
    route: (s) => `buckets/${s.bucket}/browse?prefix=2030%2F&object=2030%2Fbeach.png`,
    hasWrites: true,
  },
  { name: 'object-text', route: (s) => `buckets/${s.bucket}/browse?prefix=2030%2F&object=2030%2Fnotes.md` },
  {
    name: 'object-versions',
    route: (s) => `buckets/${s.bucket}/browse?object=readme.txt`,
    open: objectTab('Versions'),
    hasWrites: true,
  },
  {
    name: 'object-tags',
    route: (s) => `buckets/${s.bucket}/browse?object=readme.txt`,
    open: objectTab('Tags'),
    hasWrites: true,
  },
  {
    name: 'object-lock',
    route: (s) => `buckets/${s.lockedBucket}/browse?object=contract.txt`,
    open: objectTab('Retention & hold'),
    hasWrites: true,
  },
  {
    // Read-only admins create share links too: no write control here (docs/console.md "Share links").
    name: 'object-share',
    route: (s) => `buckets/${s.bucket}/browse?object=readme.txt`,
    open: objectTab('Share link'),
  },
  { name: 'search', route: () => 'search?q=o' },
  { name: 'keys', route: () => 'keys', hasWrites: true },
  {
    name: 'key-create-dialog',
    route: () => 'keys',
    adminOnly: true,
    open: async (p) => {
      await p.getByRole('button', { name: 'Create access key' }).click();
    },
  },
  { name: 'key-detail', route: (s) => `keys/${s.keyId}`, hasWrites: true },
  { name: 'users', route: () => 'users', hasWrites: true },
  { name: 'audit', route: () => 'audit' },
  { name: 'backups', route: () => 'backups' },
  { name: 'replication', route: () => 'replication' },
  { name: 'notifications', route: () => 'notifications?deadLetters=image-hook', hasWrites: true },
  { name: 'integrity', route: () => 'integrity' },
  { name: 'account', route: () => 'account' },
];
