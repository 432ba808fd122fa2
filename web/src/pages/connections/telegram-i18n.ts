import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';

/** #34 Texts of the connection form's Telegram section (namespace `telegram`; pt is the fallback). */
export const TELEGRAM_NS = 'telegram';

const pt = {
  section: 'Telegram',
  botToken: 'Token do bot',
  botTokenHelp: 'O token que o BotFather deu, como 123456789:AAF…',
  botTokenKept: 'Token guardado. Deixe vazio para mantê-lo ou cole um novo.',
  invalidToken: 'Não parece um token do BotFather (número:letras, como 123456789:AAF…)',
  stepsTitle: 'Como criar o bot',
  steps: [
    'No Telegram, abra uma conversa com @BotFather.',
    'Envie /newbot, escolha o nome e o usuário do bot (terminando em "bot").',
    'Copie o token que o BotFather responde e cole acima.',
    'Salve: o Recado confere o token e configura o webhook sozinho.',
  ],
  webhook: 'Webhook',
  webhookHelp: 'Configurado automaticamente a cada início da conexão.',
  groups: 'Só conversas privadas com o bot abrem tickets; mensagens em grupos são ignoradas.',
};
type Texts = typeof pt;

const en: Texts = {
  section: 'Telegram',
  botToken: 'Bot token',
  botTokenHelp: 'The token BotFather gave, like 123456789:AAF…',
  botTokenKept: 'Token stored. Leave empty to keep it, or paste a new one.',
  invalidToken: 'This does not look like a BotFather token (number:letters, like 123456789:AAF…)',
  stepsTitle: 'How to create the bot',
  steps: [
    'In Telegram, open a chat with @BotFather.',
    'Send /newbot, choose the bot’s name and username (ending in "bot").',
    'Copy the token BotFather answers and paste it above.',
    'Save: Recado checks the token and sets the webhook by itself.',
  ],
  webhook: 'Webhook',
  webhookHelp: 'Set automatically each time the connection starts.',
  groups: 'Only private chats with the bot open tickets; messages in groups are ignored.',
};

const es: Texts = {
  section: 'Telegram',
  botToken: 'Token del bot',
  botTokenHelp: 'El token que dio BotFather, como 123456789:AAF…',
  botTokenKept: 'Token guardado. Déjelo vacío para mantenerlo o pegue uno nuevo.',
  invalidToken: 'No parece un token de BotFather (número:letras, como 123456789:AAF…)',
  stepsTitle: 'Cómo crear el bot',
  steps: [
    'En Telegram, abra una conversación con @BotFather.',
    'Envíe /newbot, elija el nombre y el usuario del bot (terminado en "bot").',
    'Copie el token que responde BotFather y péguelo arriba.',
    'Guarde: Recado verifica el token y configura el webhook solo.',
  ],
  webhook: 'Webhook',
  webhookHelp: 'Se configura automáticamente cada vez que la conexión inicia.',
  groups: 'Solo los chats privados con el bot abren tickets; los mensajes en grupos se ignoran.',
};

addNamespace(TELEGRAM_NS, { pt, en, es });

export function useTelegramT() {
  return useTranslation(TELEGRAM_NS);
}
