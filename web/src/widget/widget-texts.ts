/** The widget's texts in pt, en and es, chosen by the visitor's browser language (Portuguese otherwise). */
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

const pt = {
  open: 'Abrir o chat',
  close: 'Fechar',
  title: 'Fale conosco',
  name: 'Nome',
  email: 'E-mail',
  phone: 'Telefone',
  emailOrPhone: 'E-mail (ou telefone abaixo)',
  contactRequired: 'Informe um e-mail ou um telefone.',
  message: 'Mensagem',
  start: 'Iniciar conversa',
  placeholder: 'Escreva uma mensagem…',
  send: 'Enviar',
  attach: 'Anexar arquivo',
  offlineIntro: 'Ninguém está online agora. Deixe sua mensagem e responderemos por e-mail.',
  sendOffline: 'Enviar mensagem',
  offlineSent: 'Mensagem recebida. Responderemos por e-mail.',
  agentTyping: 'Digitando…',
  rateLimited: 'Muitas mensagens seguidas. Aguarde um minuto e tente de novo.',
  fileType: 'Este tipo de arquivo não é aceito.',
  fileTooLarge: (b: number) => `Arquivo grande demais (até ${mb(b)} MB).`,
  tooLong: (n: number) => `Mensagem longa demais (até ${n} caracteres).`,
  invalid: 'Confira os dados informados.',
  failed: 'Não foi possível enviar. Tente de novo.',
};
export type Texts = typeof pt;

const en: Texts = {
  open: 'Open the chat',
  close: 'Close',
  title: 'Chat with us',
  name: 'Name',
  email: 'E-mail',
  phone: 'Phone',
  emailOrPhone: 'E-mail (or phone below)',
  contactRequired: 'Enter an e-mail or a phone number.',
  message: 'Message',
  start: 'Start chatting',
  placeholder: 'Write a message…',
  send: 'Send',
  attach: 'Attach a file',
  offlineIntro: 'Nobody is online right now. Leave a message and we will reply by e-mail.',
  sendOffline: 'Send message',
  offlineSent: 'Message received. We will reply by e-mail.',
  agentTyping: 'Typing…',
  rateLimited: 'Too many messages in a row. Wait a minute and try again.',
  fileType: 'This kind of file is not accepted.',
  fileTooLarge: (b) => `File too large (up to ${mb(b)} MB).`,
  tooLong: (n) => `Message too long (up to ${n} characters).`,
  invalid: 'Check the details you entered.',
  failed: 'Could not send. Try again.',
};

const es: Texts = {
  open: 'Abrir el chat',
  close: 'Cerrar',
  title: 'Hable con nosotros',
  name: 'Nombre',
  email: 'Correo electrónico',
  phone: 'Teléfono',
  emailOrPhone: 'Correo (o teléfono abajo)',
  contactRequired: 'Indique un correo o un teléfono.',
  message: 'Mensaje',
  start: 'Iniciar conversación',
  placeholder: 'Escriba un mensaje…',
  send: 'Enviar',
  attach: 'Adjuntar archivo',
  offlineIntro: 'No hay nadie en línea ahora. Deje su mensaje y le responderemos por correo.',
  sendOffline: 'Enviar mensaje',
  offlineSent: 'Mensaje recibido. Le responderemos por correo.',
  agentTyping: 'Escribiendo…',
  rateLimited: 'Demasiados mensajes seguidos. Espere un minuto e intente de nuevo.',
  fileType: 'Este tipo de archivo no se acepta.',
  fileTooLarge: (b) => `Archivo demasiado grande (hasta ${mb(b)} MB).`,
  tooLong: (n) => `Mensaje demasiado largo (hasta ${n} caracteres).`,
  invalid: 'Revise los datos indicados.',
  failed: 'No se pudo enviar. Intente de nuevo.',
};

export const texts = (language: string | undefined): Texts => {
  const l = (language ?? '').toLowerCase();
  return l.startsWith('en') ? en : l.startsWith('es') ? es : pt;
};
