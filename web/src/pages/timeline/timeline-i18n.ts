import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/** #32.5 The ticket timeline's texts: a namespace of their own (`timeline`); pt is the fallback. */
export const TIMELINE_NS = 'timeline';
export const TIMELINE_TEXTS = { pt, en, es } as const;

addNamespace(TIMELINE_NS, TIMELINE_TEXTS);

/** `t` of the timeline texts: their own keys first, then the app's. */
export function useTimelineT() {
  return useTranslation([TIMELINE_NS, 'translation'], { nsMode: 'fallback' });
}
