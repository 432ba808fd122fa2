import { createTheme, type PaletteMode } from '@mui/material/styles';

export const THEME_KEY = 'preferredTheme';

export const storedThemeMode = (): PaletteMode =>
  localStorage.getItem(THEME_KEY) === 'dark' ? 'dark' : 'light';

export function makeTheme(mode: PaletteMode) {
  return createTheme({
    palette: {
      mode,
      primary: { main: mode === 'light' ? '#0b6e4f' : '#3fbf8f' },
      secondary: { main: mode === 'light' ? '#2a6fdb' : '#7aa7ff' },
      background:
        mode === 'light'
          ? { default: '#f4f6f5', paper: '#ffffff' }
          : { default: '#0f1413', paper: '#171d1c' },
    },
    shape: { borderRadius: 8 },
    typography: {
      fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    },
    components: {
      MuiButton: { defaultProps: { disableElevation: true } },
      MuiTextField: { defaultProps: { size: 'small', fullWidth: true } },
    },
  });
}
