// Your account: who you are, your password, the theme, and which server this is.

import { useState } from 'react';
import { api } from '../api';
import type { VersionInfo } from '../api/types';
import { useResource } from '../hooks/use-resource';
import { useSession } from '../hooks/use-session';
import { setThemeChoice, themeChoice, type ThemeChoice } from '../theme';
import { SelectField } from '../ui/controls';
import { Loaded, useToast } from '../ui/feedback';
import { Card, Facts, PageHeader } from '../ui/layout';
import { ChangePasswordForm } from './change-password-form';

export default function AccountPage() {
  const { me } = useSession();
  const version = useResource((signal) => api.get<VersionInfo>('/version', undefined, signal), []);
  const [theme, setTheme] = useState<ThemeChoice>(themeChoice());
  const { notify } = useToast();
  return (
    <>
      <PageHeader title="Account" subtitle="Your sign-in and this console's settings." />
      <div className="grid-2">
        <Card title="You">
          <Facts
            items={[
              ['Username', me?.username ?? '–'],
              ['Role', me?.role === 'full-admin' ? 'Full admin' : 'Read-only'],
            ]}
          />
        </Card>
        <Card title="Appearance">
          <SelectField
            label="Theme"
            value={theme}
            onChange={(e) => {
              const choice = e.target.value as ThemeChoice;
              setTheme(choice);
              setThemeChoice(choice);
            }}
            options={[
              { value: 'system', label: 'Same as the system' },
              { value: 'light', label: 'Light' },
              { value: 'dark', label: 'Dark' },
            ]}
          />
        </Card>
      </div>
      <Card title="Change your password">
        <ChangePasswordForm onDone={() => notify('Password changed. Your other sessions were signed out.')} />
      </Card>
      <Card title="Server">
        <Loaded resource={version} feature="Version">
          {(v) => (
            <Facts
              items={[
                ['Version', v.version],
                ['Build', v.build],
                ['Node.js', v.node],
              ]}
            />
          )}
        </Loaded>
      </Card>
    </>
  );
}
