import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import EventOutlinedIcon from '@mui/icons-material/EventOutlined';
import { useTranslation } from 'react-i18next';

/** Scheduling a message from a ticket arrives with the schedules module. */
export function ScheduleDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth data-testid="schedule-dialog">
      <DialogTitle sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <EventOutlinedIcon color="primary" />
        {t('tickets.schedule.title')}
      </DialogTitle>
      <DialogContent>
        <Typography color="text.secondary">{t('tickets.schedule.soon')}</Typography>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onClose} variant="contained">
          {t('common.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
