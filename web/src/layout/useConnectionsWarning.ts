import { useEffect, useState } from 'react';
import { WARNING_STATES } from '@recado/contracts';
import { useWhatsapps, useWhatsappsRealtime } from '../api/whatsapps.js';

/**
 * The connections menu entry's warning badge (docs/product.md#screens): on when any connection is in qrcode, PAIRING,
 * DISCONNECTED, TIMEOUT or OPENING — evaluated 2 s after a change, so a quick reconnect does not blink.
 */
export function useConnectionsWarning(enabled: boolean): boolean {
  const { data } = useWhatsapps(enabled);
  useWhatsappsRealtime(enabled);
  const [warning, setWarning] = useState(false);
  useEffect(() => {
    const next = Boolean(data?.some((w) => WARNING_STATES.includes(w.status)));
    const timer = window.setTimeout(() => setWarning(next), 2000);
    return () => window.clearTimeout(timer);
  }, [data]);
  return enabled && warning;
}
