import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import WorkspacePremiumOutlinedIcon from '@mui/icons-material/WorkspacePremiumOutlined';
import { useTranslation } from 'react-i18next';
import { daysUntil, useAuth } from '../app/auth.js';

/** Shown from the premium button during the trial; choosing a plan arrives with billing. */
export function PremiumDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const days = daysUntil(user?.company.dueDate);
  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle sx={{ display: 'flex', alignItems: 'center', gap: 1.5, fontWeight: 700 }}>
        <Box
          sx={{
            width: 40,
            height: 40,
            borderRadius: 2,
            display: 'grid',
            placeItems: 'center',
            bgcolor: 'warning.main',
            color: 'warning.contrastText',
          }}
        >
          <WorkspacePremiumOutlinedIcon />
        </Box>
        {t('layout.premiumTitle')}
      </DialogTitle>
      <DialogContent>
        {days !== null && days >= 0 && (
          <Typography sx={{ fontWeight: 600, mb: 1 }}>
            {t('layout.trialDaysLeft', { count: days })}
          </Typography>
        )}
        <Typography color="text.secondary">{t('layout.premiumText')}</Typography>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button variant="contained" onClick={onClose}>
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
