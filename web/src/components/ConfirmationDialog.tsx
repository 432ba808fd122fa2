import { useState, type ReactNode } from 'react';
import {
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';

export interface ConfirmationDialogProps {
  open: boolean;
  title: ReactNode;
  /** The question or warning under the title. */
  children?: ReactNode;
  onClose(): void;
  /** May return a promise: the dialog shows progress and closes when it settles without error. */
  onConfirm(): unknown;
  confirmLabel?: ReactNode;
  /** Red confirm button (deletions); default true. */
  danger?: boolean;
}

/** "Are you sure?" before deleting or any other step that cannot be undone. */
export function ConfirmationDialog({
  open,
  title,
  children,
  onClose,
  onConfirm,
  confirmLabel,
  danger = true,
}: ConfirmationDialogProps) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
      onClose();
    } catch {
      // The caller shows the error; the dialog stays open so the user can retry or cancel.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : onClose}
      maxWidth="xs"
      fullWidth
      aria-labelledby="confirm-title"
    >
      <DialogTitle id="confirm-title">{title}</DialogTitle>
      {children ? (
        <DialogContent>
          {typeof children === 'string' ? (
            <Typography color="text.secondary">{children}</Typography>
          ) : (
            children
          )}
        </DialogContent>
      ) : null}
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onClose} disabled={busy} color="inherit">
          {t('common.cancel')}
        </Button>
        <Button
          onClick={() => void confirm()}
          disabled={busy}
          variant="contained"
          color={danger ? 'error' : 'primary'}
          startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}
          autoFocus
        >
          {confirmLabel ?? t('common.confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export default ConfirmationDialog;
