import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { MenuItem, TextField } from '@mui/material';
import type { ClosingReason } from '@recado/contracts';
import { api } from '../../api/client.js';
import { FormDialog } from '../../components/FormDialog.js';
import { CLOSING_NS } from './closing-i18n.js';

/** The company's closing reasons (GET /closing-reasons), active ones only, in their order. */
export function useClosingReasons(enabled = true) {
  return useQuery({
    queryKey: ['closing-reasons'],
    queryFn: () => api.get<ClosingReason[]>('/closing-reasons'),
    enabled,
  });
}

/**
 * #32.3 Asked on resolve when the company's closingReasonMode is 'optional' or 'required': the reason and an
 * optional sale value. `onResolve` gets what PUT /tickets/{id} sends with status 'closed'.
 */
export function ResolveDialog({
  open,
  required,
  busy,
  onClose,
  onResolve,
}: {
  open: boolean;
  required: boolean;
  busy: boolean;
  onClose(): void;
  onResolve(v: { closingReasonId: number | null; saleValue: number | null }): void;
}) {
  const { t } = useTranslation(CLOSING_NS);
  const reasons = useClosingReasons(open);
  const [reasonId, setReasonId] = useState<string>('');
  const [sale, setSale] = useState('');
  const [tried, setTried] = useState(false);
  const saleText = sale.trim().replace(',', '.');
  const saleOk = saleText === '' || /^\d{1,12}(\.\d{1,2})?$/.test(saleText);
  const reasonMissing = required && !reasonId;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (reasonMissing || !saleOk) return;
    onResolve({
      closingReasonId: reasonId ? Number(reasonId) : null,
      saleValue: saleText === '' ? null : Number(saleText),
    });
  };

  return (
    <FormDialog
      open={open}
      title={t('resolveTitle')}
      onClose={onClose}
      onSubmit={submit}
      submitting={busy}
      submitLabel={t('resolve')}
    >
      <TextField
        select
        // "E" opens this dialog from the keyboard: the reason is where the typing goes (#32 Done means).
        autoFocus
        label={t('reason')}
        value={reasonId}
        onChange={(e) => setReasonId(e.target.value)}
        required={required}
        error={tried && reasonMissing}
        helperText={tried && reasonMissing ? t('reasonRequired') : ' '}
        slotProps={{ select: { inputProps: { 'data-testid': 'closing-reason-select' } } }}
      >
        {!required && <MenuItem value="">{t('noReason')}</MenuItem>}
        {(reasons.data ?? [])
          .filter((r) => r.active)
          .map((r) => (
            <MenuItem key={r.id} value={String(r.id)}>
              {r.name}
            </MenuItem>
          ))}
      </TextField>
      <TextField
        label={t('saleValue')}
        value={sale}
        onChange={(e) => setSale(e.target.value)}
        inputMode="decimal"
        error={tried && !saleOk}
        helperText={tried && !saleOk ? t('saleValueInvalid') : ' '}
      />
    </FormDialog>
  );
}
