import { IconButton, InputAdornment, Tooltip } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useTranslation } from 'react-i18next';
import { useToast } from '../../app/useToast.js';

/** A read-only value with a copy button (the webhook URL and the verify token go to Meta's dashboard). */
export function CopyAdornment({ value }: { value: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  return (
    <InputAdornment position="end">
      <Tooltip title={t('connections.cloud.copy')}>
        <IconButton
          size="small"
          edge="end"
          aria-label={t('connections.cloud.copy')}
          onClick={() =>
            void navigator.clipboard?.writeText(value).then(() => toast.info('connections.cloud.copied'))
          }
        >
          <ContentCopyIcon fontSize="small" />
        </IconButton>
      </Tooltip>
    </InputAdornment>
  );
}
