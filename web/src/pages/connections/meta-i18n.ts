import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';

/** #34 Texts of the connection form's Instagram / Messenger section (namespace `meta`; pt is the fallback). */
export const META_NS = 'meta';

const pt = {
  section: { instagram: 'Instagram Direct', messenger: 'Facebook Messenger' },
  accountId: { instagram: 'ID da conta do Instagram', messenger: 'ID da página do Facebook' },
  accountIdHelp: {
    instagram: 'A conta profissional do Instagram ligada à página (só números).',
    messenger: 'Em Configurações da página → Sobre, ou no painel do app da Meta (só números).',
  },
  pageAccessToken: 'Token de acesso da página',
  appSecret: 'Chave secreta do app',
  secretKept: 'Guardado. Deixe vazio para manter ou cole um novo.',
  verifyToken: 'Token de verificação',
  verifyTokenHelp: 'Cole no painel da Meta junto com a URL do webhook.',
  graphBaseUrl: 'URL da Graph API (opcional)',
  graphBaseUrlHelp: 'Deixe vazio para usar https://graph.facebook.com.',
  webhookUrl: 'URL do webhook (callback)',
  webhookUrlHelp: 'Cole no painel da Meta: Webhooks → Editar assinatura.',
  webhookAfterSave: 'A URL do webhook aparece aqui depois de salvar.',
  stepsTitle: 'Como configurar no painel da Meta',
  steps: {
    instagram: [
      'Em developers.facebook.com, no seu app, adicione o produto Messenger e ative a API do Instagram.',
      'Gere o token de acesso da página ligada à conta do Instagram e cole acima.',
      'Em Webhooks (objeto Instagram), cole a URL do webhook e o token de verificação.',
      'Assine os campos messages, messaging_postbacks, message_reactions e messaging_seen.',
    ],
    messenger: [
      'Em developers.facebook.com, no seu app, adicione o produto Messenger.',
      'Gere o token de acesso da página e cole acima; a chave secreta fica em Configurações → Básico.',
      'Em Webhooks (objeto Page), cole a URL do webhook e o token de verificação.',
      'Assine messages, message_echoes, message_edits, messaging_postbacks, message_deliveries e message_reads.',
    ],
  },
  window:
    'Respostas em até 24 horas após a última mensagem do cliente; até 7 dias só de um atendente (tag HUMAN_AGENT); depois, só quando o cliente escrever de novo.',
};
type Texts = typeof pt;

const en: Texts = {
  section: { instagram: 'Instagram Direct', messenger: 'Facebook Messenger' },
  accountId: { instagram: 'Instagram account ID', messenger: 'Facebook page ID' },
  accountIdHelp: {
    instagram: 'The Instagram professional account linked to the page (digits only).',
    messenger: 'In the page’s Settings → About, or in Meta’s app dashboard (digits only).',
  },
  pageAccessToken: 'Page access token',
  appSecret: 'App secret',
  secretKept: 'Stored. Leave empty to keep it, or paste a new one.',
  verifyToken: 'Verify token',
  verifyTokenHelp: 'Paste it in Meta’s dashboard with the webhook URL.',
  graphBaseUrl: 'Graph API URL (optional)',
  graphBaseUrlHelp: 'Leave empty to use https://graph.facebook.com.',
  webhookUrl: 'Webhook (callback) URL',
  webhookUrlHelp: 'Paste it in Meta’s dashboard: Webhooks → Edit subscription.',
  webhookAfterSave: 'The webhook URL appears here once saved.',
  stepsTitle: 'How to set it up in Meta’s dashboard',
  steps: {
    instagram: [
      'At developers.facebook.com, in your app, add the Messenger product and turn on the Instagram API.',
      'Generate the access token of the page linked to the Instagram account and paste it above.',
      'Under Webhooks (Instagram object), paste the webhook URL and the verify token.',
      'Subscribe to messages, messaging_postbacks, message_reactions and messaging_seen.',
    ],
    messenger: [
      'At developers.facebook.com, in your app, add the Messenger product.',
      'Generate the page access token and paste it above; the app secret is under Settings → Basic.',
      'Under Webhooks (Page object), paste the webhook URL and the verify token.',
      'Subscribe to messages, message_echoes, message_edits, messaging_postbacks, message_deliveries and message_reads.',
    ],
  },
  window:
    'Replies within 24 hours of the customer’s last message; up to 7 days only from an attendant (HUMAN_AGENT tag); after that, only once the customer writes again.',
};

const es: Texts = {
  section: { instagram: 'Instagram Direct', messenger: 'Facebook Messenger' },
  accountId: { instagram: 'ID de la cuenta de Instagram', messenger: 'ID de la página de Facebook' },
  accountIdHelp: {
    instagram: 'La cuenta profesional de Instagram vinculada a la página (solo números).',
    messenger: 'En Configuración de la página → Información, o en el panel de la app de Meta (solo números).',
  },
  pageAccessToken: 'Token de acceso de la página',
  appSecret: 'Clave secreta de la app',
  secretKept: 'Guardado. Déjelo vacío para mantenerlo o pegue uno nuevo.',
  verifyToken: 'Token de verificación',
  verifyTokenHelp: 'Péguelo en el panel de Meta junto con la URL del webhook.',
  graphBaseUrl: 'URL de la Graph API (opcional)',
  graphBaseUrlHelp: 'Déjelo vacío para usar https://graph.facebook.com.',
  webhookUrl: 'URL del webhook (callback)',
  webhookUrlHelp: 'Péguela en el panel de Meta: Webhooks → Editar suscripción.',
  webhookAfterSave: 'La URL del webhook aparece aquí después de guardar.',
  stepsTitle: 'Cómo configurarlo en el panel de Meta',
  steps: {
    instagram: [
      'En developers.facebook.com, en su app, agregue el producto Messenger y active la API de Instagram.',
      'Genere el token de acceso de la página vinculada a la cuenta de Instagram y péguelo arriba.',
      'En Webhooks (objeto Instagram), pegue la URL del webhook y el token de verificación.',
      'Suscríbase a messages, messaging_postbacks, message_reactions y messaging_seen.',
    ],
    messenger: [
      'En developers.facebook.com, en su app, agregue el producto Messenger.',
      'Genere el token de acceso de la página y péguelo arriba; la clave secreta está en Configuración → Básica.',
      'En Webhooks (objeto Page), pegue la URL del webhook y el token de verificación.',
      'Suscríbase a messages, message_echoes, message_edits, messaging_postbacks, message_deliveries y message_reads.',
    ],
  },
  window:
    'Respuestas hasta 24 horas después del último mensaje del cliente; hasta 7 días solo de un agente (etiqueta HUMAN_AGENT); después, solo cuando el cliente vuelva a escribir.',
};

addNamespace(META_NS, { pt, en, es });

export function useMetaT() {
  return useTranslation(META_NS);
}
