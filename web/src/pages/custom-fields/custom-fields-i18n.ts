import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/** The custom fields' texts (#32.7) are a namespace of their own (`customFields`); pt is the fallback. */
export const CUSTOM_FIELDS_NS = 'customFields';
addNamespace(CUSTOM_FIELDS_NS, { pt, en, es });

/** `t` of the custom fields' texts: their own keys first, then the app's (common.*, errors.*). */
export function useCustomFieldsT() {
  return useTranslation([CUSTOM_FIELDS_NS, 'translation'], { nsMode: 'fallback' });
}
