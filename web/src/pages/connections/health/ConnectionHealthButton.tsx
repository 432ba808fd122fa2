import { IconButton, Tooltip } from '@mui/material';
import MonitorHeartOutlinedIcon from '@mui/icons-material/MonitorHeartOutlined';
import { useSearchParams } from 'react-router';
import { ConnectionHealthDialog } from './ConnectionHealthDialog.js';
import { useHealthT } from './health-i18n.js';

/**
 * The connections row's health button (#33.2) and its dialog. `/connections?health={id}` opens it too: the
 * alerts' links (top bar, push, e-mail) land there.
 */
export function ConnectionHealthButton({ whatsapp }: { whatsapp: { id: number; name: string } }) {
  const { t } = useHealthT();
  const [params, setParams] = useSearchParams();
  const open = params.get('health') === String(whatsapp.id);
  const setOpen = (next: boolean) =>
    setParams(
      (p) => {
        const copy = new URLSearchParams(p);
        if (next) copy.set('health', String(whatsapp.id));
        else copy.delete('health');
        return copy;
      },
      { replace: true },
    );
  return (
    <>
      <Tooltip title={t('button')}>
        <IconButton
          size="small"
          color="secondary"
          aria-label={t('button')}
          data-testid="health-button"
          onClick={() => setOpen(true)}
        >
          <MonitorHeartOutlinedIcon fontSize="small" />
        </IconButton>
      </Tooltip>
      <ConnectionHealthDialog whatsapp={open ? whatsapp : null} onClose={() => setOpen(false)} />
    </>
  );
}
