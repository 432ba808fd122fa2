import { Alert } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { botText } from '@recado/contracts';
import { useSettings } from '../api/settings.js';
import { useWhatsapps } from '../api/whatsapps.js';

/** The settings as a key → value record (what botText reads). */
export function useSettingValues(): Record<string, string> {
  const { data } = useSettings();
  return Object.fromEntries((data ?? []).map((s) => [s.key, s.value]));
}

/**
 * Issue 21 §1: with company-level hours, a connection without an out-of-hours message answers a closed
 * company's customers with the default text only. The admin is told which connections, and what they send.
 * `message` checks one connection being edited; without it, every connection of the company is checked.
 */
export function OutOfHoursWarning({ message }: { message?: string }) {
  const { t } = useTranslation();
  const settings = useSettingValues();
  const connections = useWhatsapps(message === undefined);
  if (settings.scheduleType !== 'company') return null;
  const fallback = botText(settings, 'botOutOfHours');
  if (message !== undefined) {
    if (message.trim()) return null;
    return (
      <Alert severity="warning" data-testid="out-of-hours-warning">
        {t('outOfHours.emptyOne', { text: fallback })}
      </Alert>
    );
  }
  const empty = (connections.data ?? []).filter((w) => !w.outOfHoursMessage?.trim());
  if (!empty.length) return null;
  return (
    <Alert severity="warning" data-testid="out-of-hours-warning">
      {t('outOfHours.emptyMany', { names: empty.map((w) => w.name).join(', '), text: fallback })}
    </Alert>
  );
}
