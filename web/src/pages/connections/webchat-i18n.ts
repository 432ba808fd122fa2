import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';

/** #34.1 Texts of the connection form's website chat section (namespace `webchat`; pt is the fallback). */
export const WEBCHAT_NS = 'webchat';

const pt = {
  section: 'Chat do site',
  color: 'Cor',
  position: 'Posição do botão',
  positions: { right: 'À direita', left: 'À esquerda' },
  title: 'Título',
  titleHelp: 'No topo da janela do chat (vazio: "Fale conosco").',
  greeting: 'Saudação',
  greetingHelp: 'Mostrada ao visitante ao abrir o chat.',
  allowedOrigins: 'Sites permitidos',
  allowedOriginsHelp: 'Um por linha, como https://www.minhaloja.com.br. O chat só abre nessas páginas.',
  preChatForm: 'Formulário antes do chat',
  preChatContact: 'Pedir',
  preChatContacts: { email: 'E-mail', phone: 'Telefone', either: 'E-mail ou telefone' },
  consentText: 'Texto da caixa de consentimento',
  consentTextHelp: 'Vazio: sem caixa de consentimento.',
  offlineForm: 'Formulário quando ninguém está online',
  offlineFormHelp: 'O visitante deixa nome, e-mail e mensagem; a resposta vai por e-mail.',
  snippet: 'Código para o site',
  snippetHelp: 'Cole antes de </body> em cada página onde o chat deve aparecer.',
  snippetAfterSave: 'O código para colar no site aparece depois de salvar.',
  copy: 'Copiar',
  copied: 'Código copiado',
  invalidColor: 'Use uma cor como #2563eb',
  invalidOrigin: 'Cada linha deve ser um endereço como https://www.exemplo.com (sem caminho)',
};
type Texts = typeof pt;

const en: Texts = {
  section: 'Website chat',
  color: 'Colour',
  position: 'Button position',
  positions: { right: 'Right', left: 'Left' },
  title: 'Title',
  titleHelp: 'At the top of the chat window (empty: "Chat with us").',
  greeting: 'Greeting',
  greetingHelp: 'Shown to the visitor when the chat opens.',
  allowedOrigins: 'Allowed sites',
  allowedOriginsHelp: 'One a line, like https://www.myshop.com. The chat opens on these pages only.',
  preChatForm: 'Form before the chat',
  preChatContact: 'Ask for',
  preChatContacts: { email: 'E-mail', phone: 'Phone', either: 'E-mail or phone' },
  consentText: 'Consent checkbox text',
  consentTextHelp: 'Empty: no consent checkbox.',
  offlineForm: 'Form when nobody is online',
  offlineFormHelp: 'The visitor leaves a name, e-mail and message; the reply goes by e-mail.',
  snippet: 'Code for the site',
  snippetHelp: 'Paste it before </body> on every page the chat should appear on.',
  snippetAfterSave: 'The code to paste on the site appears after saving.',
  copy: 'Copy',
  copied: 'Code copied',
  invalidColor: 'Use a colour like #2563eb',
  invalidOrigin: 'Each line must be an address like https://www.example.com (no path)',
};

const es: Texts = {
  section: 'Chat del sitio',
  color: 'Color',
  position: 'Posición del botón',
  positions: { right: 'A la derecha', left: 'A la izquierda' },
  title: 'Título',
  titleHelp: 'En la parte superior de la ventana del chat (vacío: "Hable con nosotros").',
  greeting: 'Saludo',
  greetingHelp: 'Se muestra al visitante al abrir el chat.',
  allowedOrigins: 'Sitios permitidos',
  allowedOriginsHelp: 'Uno por línea, como https://www.mitienda.com. El chat solo se abre en esas páginas.',
  preChatForm: 'Formulario antes del chat',
  preChatContact: 'Pedir',
  preChatContacts: { email: 'Correo', phone: 'Teléfono', either: 'Correo o teléfono' },
  consentText: 'Texto de la casilla de consentimiento',
  consentTextHelp: 'Vacío: sin casilla de consentimiento.',
  offlineForm: 'Formulario cuando no hay nadie en línea',
  offlineFormHelp: 'El visitante deja nombre, correo y mensaje; la respuesta va por correo.',
  snippet: 'Código para el sitio',
  snippetHelp: 'Péguelo antes de </body> en cada página donde debe aparecer el chat.',
  snippetAfterSave: 'El código para pegar en el sitio aparece después de guardar.',
  copy: 'Copiar',
  copied: 'Código copiado',
  invalidColor: 'Use un color como #2563eb',
  invalidOrigin: 'Cada línea debe ser una dirección como https://www.ejemplo.com (sin ruta)',
};

addNamespace(WEBCHAT_NS, { pt, en, es });

export function useWebchatT() {
  return useTranslation(WEBCHAT_NS);
}
