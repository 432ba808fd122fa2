import type { ReactNode } from 'react';
import { Box, Paper, Stack, Typography } from '@mui/material';
import { alpha } from '@mui/material/styles';
import { useTranslation } from 'react-i18next';
import { Logo } from '../components/Logo.js';
import { LanguageMenu } from '../components/LanguageMenu.js';
import { LanguageSuggestion } from '../components/LanguageSuggestion.js';
import { ThemeToggle } from '../components/ThemeToggle.js';

/**
 * The frame of the public pages (login, signup, password reset): language and theme at the top, a
 * centred card with the Recado mark, and the copyright line.
 */
export function PublicLayout({
  children,
  maxWidth = 440,
  aside,
}: {
  children: ReactNode;
  maxWidth?: number;
  /** An optional brand panel shown beside the form on wide screens. */
  aside?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Box
      sx={(theme) => ({
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        background:
          theme.palette.mode === 'light'
            ? `radial-gradient(1200px 600px at 0% 0%, ${alpha(theme.palette.primary.main, 0.12)}, transparent 60%), radial-gradient(900px 500px at 100% 100%, ${alpha(theme.palette.secondary.main, 0.1)}, transparent 60%), ${theme.palette.background.default}`
            : `radial-gradient(1200px 600px at 0% 0%, ${alpha(theme.palette.primary.main, 0.14)}, transparent 60%), radial-gradient(900px 500px at 100% 100%, ${alpha(theme.palette.secondary.main, 0.08)}, transparent 60%), ${theme.palette.background.default}`,
      })}
    >
      <Stack direction="row" spacing={0.5} sx={{ p: { xs: 1, sm: 2 }, justifyContent: 'flex-end' }}>
        <LanguageMenu variant="button" />
        <ThemeToggle />
      </Stack>
      <Box sx={{ display: 'flex', justifyContent: 'center', px: 2 }}>
        <LanguageSuggestion />
      </Box>
      <Box component="main" sx={{ flex: 1, display: 'grid', placeItems: 'center', px: 2, pb: 2 }}>
        <Paper
          elevation={0}
          sx={(theme) => ({
            width: '100%',
            maxWidth,
            display: 'flex',
            overflow: 'hidden',
            borderRadius: 4,
            border: `1px solid ${theme.palette.divider}`,
            boxShadow:
              theme.palette.mode === 'light'
                ? '0 24px 48px -12px rgba(16,24,40,.14), 0 4px 8px -2px rgba(16,24,40,.05)'
                : '0 24px 48px -12px rgba(0,0,0,.6)',
          })}
        >
          {aside && (
            <Box
              sx={(theme) => ({
                display: { xs: 'none', md: 'flex' },
                flexDirection: 'column',
                width: '42%',
                flexShrink: 0,
                p: 5,
                color: '#fff',
                background: `linear-gradient(160deg, ${theme.palette.mode === 'light' ? '#0b6e4f' : '#0e5a42'} 0%, ${theme.palette.mode === 'light' ? '#0f8a63' : '#12402f'} 55%, ${theme.palette.mode === 'light' ? '#1a5fb4' : '#173a66'} 140%)`,
              })}
            >
              {aside}
            </Box>
          )}
          <Box sx={{ flex: 1, minWidth: 0, p: { xs: 3, sm: 5 } }}>
            <Box sx={{ display: 'flex', justifyContent: 'center', mb: 3 }}>
              <Logo size={40} />
            </Box>
            {children}
          </Box>
        </Paper>
      </Box>
      <Typography
        component="footer"
        variant="caption"
        color="text.secondary"
        sx={{ textAlign: 'center', py: 2 }}
      >
        {t('layout.copyright', { year: new Date().getFullYear() })}
      </Typography>
    </Box>
  );
}
