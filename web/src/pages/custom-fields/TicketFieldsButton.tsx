import { useMemo, useState } from 'react';
import { Box, Button, IconButton, Popover, Stack, Tooltip, Typography } from '@mui/material';
import DynamicFormOutlinedIcon from '@mui/icons-material/DynamicFormOutlined';
import type { TicketView } from '@recado/contracts';
import { useAuth } from '../../app/auth.js';
import { useToast } from '../../app/useToast.js';
import { useCustomFields } from '../../api/custom-fields.js';
import { useUpdateTicket, viewerOf } from '../../api/tickets.js';
import {
  CustomFieldsEditor,
  customFieldErrorsOf,
  customFieldsInput,
  rawCustomFields,
  type RawCustomFields,
} from './CustomFieldValues.js';
import { useCustomFieldsT } from './custom-fields-i18n.js';

/**
 * #32.7 The chat header's "Fields" button: a small panel with the ticket's custom fields, saved with
 * PUT /tickets/{id} {customFields} (only what changed). Hidden while the company has no ticket fields.
 */
export function TicketFieldsButton({ ticket }: { ticket: TicketView }) {
  const { t } = useCustomFieldsT();
  const { user } = useAuth();
  const viewer = useMemo(() => viewerOf(user!), [user]);
  const update = useUpdateTicket(viewer);
  const toast = useToast();
  const { fields } = useCustomFields('ticket');
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [raw, setRaw] = useState<RawCustomFields>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  if (!fields.length) return null;
  const label = t('customFields:values.title');
  const openPanel = (el: HTMLElement) => {
    setRaw(rawCustomFields(fields, ticket.customFields));
    setErrors({});
    setAnchor(el);
  };
  const save = () => {
    const { input, errors: local } = customFieldsInput(fields, raw, ticket.customFields);
    setErrors(local);
    if (Object.keys(local).length) return;
    if (!Object.keys(input).length) return setAnchor(null);
    update.mutate(
      { id: ticket.id, input: { customFields: input } },
      {
        onSuccess: () => {
          toast.success('customFields:values.saved');
          setAnchor(null);
        },
        onError: (err) => {
          setErrors(customFieldErrorsOf(err));
          toast.error(err);
        },
      },
    );
  };
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          onClick={(e) => openPanel(e.currentTarget)}
          aria-label={label}
          aria-haspopup="dialog"
          data-testid="chat-fields"
        >
          <DynamicFormOutlinedIcon />
        </IconButton>
      </Tooltip>
      <Popover
        open={Boolean(anchor)}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{ paper: { sx: { width: 'min(360px, calc(100vw - 24px))', p: 2 } } }}
      >
        <Box
          component="form"
          onSubmit={(e) => (e.preventDefault(), save())}
          data-testid="ticket-fields-panel"
        >
          <Typography variant="subtitle2" sx={{ mb: 1.5 }}>
            {label}
          </Typography>
          <CustomFieldsEditor fields={fields} value={raw} onChange={setRaw} errors={errors} />
          <Stack direction="row" sx={{ justifyContent: 'flex-end', mt: 2, gap: 1 }}>
            <Button onClick={() => setAnchor(null)}>{t('common.cancel')}</Button>
            <Button
              type="submit"
              variant="contained"
              disabled={update.isPending}
              data-testid="ticket-fields-save"
            >
              {t('customFields:values.save')}
            </Button>
          </Stack>
        </Box>
      </Popover>
    </>
  );
}
