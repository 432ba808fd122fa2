import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';
import pt from './i18n/pt.json';
import en from './i18n/en.json';
import es from './i18n/es.json';

/** The company export and import texts (#35.4): a namespace of their own, pt the fallback. */
export const TRANSFER_NS = 'companyTransfer';

addNamespace(TRANSFER_NS, { pt, en, es });

export function useTransferT() {
  return useTranslation([TRANSFER_NS, 'translation'], { nsMode: 'fallback' });
}
