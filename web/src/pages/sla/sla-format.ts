/** A duration as the chip shows it: "2 d 3 h", "1 h 5 min", "12 min", "< 1 min". */
export function formatSlaDuration(ms: number, t: (key: string, o?: Record<string, unknown>) => string) {
  const minutes = Math.floor(Math.abs(ms) / 60_000);
  if (minutes < 1) return t('sla:units.lessThanMinute');
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d) return [t('sla:units.d', { n: d }), h ? t('sla:units.h', { n: h }) : ''].filter(Boolean).join(' ');
  if (h) return [t('sla:units.h', { n: h }), m ? t('sla:units.min', { n: m }) : ''].filter(Boolean).join(' ');
  return t('sla:units.min', { n: m });
}
