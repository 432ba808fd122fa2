import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { CssBaseline, ThemeProvider } from '@mui/material';
import type { PaletteMode } from '@mui/material';
import { THEME_KEY, makeTheme, storedThemeMode } from '../theme/theme.js';

const ThemeModeContext = createContext<{ mode: PaletteMode; toggle(): void }>({
  mode: 'light',
  toggle: () => undefined,
});

/** Light or dark, stored as preferredTheme. */
export function ThemeModeProvider({ children }: { children: ReactNode }) {
  const [mode, setMode] = useState<PaletteMode>(storedThemeMode);
  const theme = useMemo(() => makeTheme(mode), [mode]);
  const value = useMemo(
    () => ({
      mode,
      toggle: () =>
        setMode((m) => {
          const next = m === 'light' ? 'dark' : 'light';
          localStorage.setItem(THEME_KEY, next);
          return next;
        }),
    }),
    [mode],
  );
  return (
    <ThemeModeContext.Provider value={value}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        {children}
      </ThemeProvider>
    </ThemeModeContext.Provider>
  );
}

export const useThemeMode = () => useContext(ThemeModeContext);
