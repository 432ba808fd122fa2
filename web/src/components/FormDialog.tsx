import type { FormEventHandler, ReactNode } from 'react';
import {
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  type Breakpoint,
} from '@mui/material';
import { useTranslation } from 'react-i18next';

export interface FormDialogProps {
  open: boolean;
  title: ReactNode;
  onClose(): void;
  /** The form's submit handler (react-hook-form's handleSubmit(...)). */
  onSubmit: FormEventHandler<HTMLFormElement>;
  submitting?: boolean;
  submitLabel?: ReactNode;
  maxWidth?: Breakpoint;
  /** Nothing can be saved (a read-only record): a single close button instead of cancel and save. */
  readOnly?: boolean;
  children: ReactNode;
}

/** The add/edit dialog frame every admin screen shares: title, a column of fields, cancel and save. */
export function FormDialog({
  open,
  title,
  onClose,
  onSubmit,
  submitting = false,
  submitLabel,
  maxWidth = 'sm',
  readOnly = false,
  children,
}: FormDialogProps) {
  const { t } = useTranslation();
  return (
    <Dialog
      open={open}
      onClose={submitting ? undefined : onClose}
      maxWidth={maxWidth}
      fullWidth
      aria-labelledby="form-dialog-title"
      slotProps={{ paper: { component: 'form', onSubmit, noValidate: true } as object }}
    >
      <DialogTitle id="form-dialog-title">{title}</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2} sx={{ pt: 0.5 }}>
          {children}
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 1.5 }}>
        {readOnly ? (
          <Button variant="contained" onClick={onClose} autoFocus>
            {t('common.close')}
          </Button>
        ) : (
          <>
            <Button onClick={onClose} disabled={submitting} color="inherit">
              {t('common.cancel')}
            </Button>
            <Button
              type="submit"
              variant="contained"
              disabled={submitting}
              startIcon={submitting ? <CircularProgress size={16} color="inherit" /> : undefined}
            >
              {submitLabel ?? t('common.save')}
            </Button>
          </>
        )}
      </DialogActions>
    </Dialog>
  );
}

export default FormDialog;
