/** Light, dark, or the system's choice (prefers-color-scheme), kept in localStorage. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'picket.theme';

export function storedTheme(): ThemeChoice {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') {
    localStorage.removeItem(KEY);
    delete document.documentElement.dataset.theme;
  } else {
    localStorage.setItem(KEY, choice);
    document.documentElement.dataset.theme = choice;
  }
}
