import { Box, Paper, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';

/** Screens whose capability arrives with a later issue say so plainly. */
export default function ComingSoonPage({ feature }: { feature: string }) {
  const { t } = useTranslation();
  return (
    <Box sx={{ p: 3 }}>
      <Paper sx={{ p: 4, textAlign: 'center' }}>
        <Typography variant="h5" gutterBottom>
          {t(`menu.${feature}`)}
        </Typography>
        <Typography color="text.secondary">{t('comingSoon.text')}</Typography>
      </Paper>
    </Box>
  );
}
