// Light and dark themes: CSS variables switched by <html data-theme>. The choice (light, dark or the system's) is
// a display preference, the only thing the console keeps in localStorage.

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'store-console-theme';
const media = window.matchMedia('(prefers-color-scheme: dark)');

export function themeChoice(): ThemeChoice {
  const v = localStorage.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

export function resolvedTheme(choice: ThemeChoice = themeChoice()): 'light' | 'dark' {
  return choice === 'system' ? (media.matches ? 'dark' : 'light') : choice;
}

export function applyTheme(): void {
  document.documentElement.dataset['theme'] = resolvedTheme();
}

export function setThemeChoice(choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  applyTheme();
}

media.addEventListener('change', applyTheme);
