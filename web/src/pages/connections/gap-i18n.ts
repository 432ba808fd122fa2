import { useTranslation } from 'react-i18next';
import { addNamespace } from '../../i18n/namespace.js';

/**
 * #33.3-5 Texts of recovered messages, calls and groups (the connection form's section, the connections page's
 * recovery line, the chat's marks): a namespace of their own (`connectionGap`). pt is the fallback.
 */
export const GAP_NS = 'connectionGap';

const pt = {
  section: 'Chamadas e grupos',
  groupMode: 'Mensagens de grupos',
  groupModeHelp: 'Grupos nunca recebem saudação, menu, fluxo nem avaliação.',
  groupModes: { ignore: 'Ignorar grupos', tickets: 'Um atendimento por grupo' },
  callMode: 'Chamadas de voz e vídeo',
  callModes: { ring: 'Deixar tocar no celular', reject: 'Recusar e responder com uma mensagem' },
  callRejectMessage: 'Mensagem ao recusar',
  callRejectMessageHelp: 'Enviada a quem ligou quando a chamada é recusada (vazia: recusa sem mensagem).',
  callOpensTicket: 'Chamada sem atendimento aberto cria um atendimento',
  callOpensTicketHelp:
    'Desligado: a chamada perdida só é registrada no atendimento aberto do cliente, se houver.',
  recovered_one: '{{count}} mensagem recuperada após {{duration}} offline',
  recovered_other: '{{count}} mensagens recuperadas após {{duration}} offline',
  recoveredHelp:
    'Fora do ar de {{from}} a {{to}}. As mensagens entraram nos atendimentos com o horário original.',
  minutes: '{{n}} min',
  hours: '{{n}} h',
  days: '{{n}} d',
  recoveredMark: 'recuperada',
  recoveredMarkHelp: 'Recebida enquanto a conexão estava fora do ar e recuperada quando ela voltou',
};
type Texts = typeof pt;

const en: Texts = {
  section: 'Calls and groups',
  groupMode: 'Group messages',
  groupModeHelp: 'Groups never get the greeting, menu, flow or rating.',
  groupModes: { ignore: 'Ignore groups', tickets: 'One ticket per group' },
  callMode: 'Voice and video calls',
  callModes: { ring: 'Let them ring on the phone', reject: 'Reject and reply with a message' },
  callRejectMessage: 'Message when rejecting',
  callRejectMessageHelp: 'Sent to the caller when the call is rejected (empty: rejected without a message).',
  callOpensTicket: 'A call without an open ticket opens one',
  callOpensTicketHelp: 'Off: the missed call is only logged on the customer’s open ticket, if any.',
  recovered_one: '{{count}} message recovered after {{duration}} offline',
  recovered_other: '{{count}} messages recovered after {{duration}} offline',
  recoveredHelp: 'Down from {{from}} to {{to}}. The messages joined their tickets with their original times.',
  minutes: '{{n}} min',
  hours: '{{n}} h',
  days: '{{n}} d',
  recoveredMark: 'recovered',
  recoveredMarkHelp: 'Received while the connection was down and recovered when it came back',
};

const es: Texts = {
  section: 'Llamadas y grupos',
  groupMode: 'Mensajes de grupos',
  groupModeHelp: 'Los grupos nunca reciben saludo, menú, flujo ni valoración.',
  groupModes: { ignore: 'Ignorar grupos', tickets: 'Una atención por grupo' },
  callMode: 'Llamadas de voz y video',
  callModes: { ring: 'Dejar sonar en el teléfono', reject: 'Rechazar y responder con un mensaje' },
  callRejectMessage: 'Mensaje al rechazar',
  callRejectMessageHelp:
    'Se envía a quien llamó cuando se rechaza la llamada (vacío: se rechaza sin mensaje).',
  callOpensTicket: 'Una llamada sin atención abierta crea una atención',
  callOpensTicketHelp:
    'Apagado: la llamada perdida solo se registra en la atención abierta del cliente, si la hay.',
  recovered_one: '{{count}} mensaje recuperado tras {{duration}} sin conexión',
  recovered_other: '{{count}} mensajes recuperados tras {{duration}} sin conexión',
  recoveredHelp: 'Caída de {{from}} a {{to}}. Los mensajes entraron en sus atenciones con su hora original.',
  minutes: '{{n}} min',
  hours: '{{n}} h',
  days: '{{n}} d',
  recoveredMark: 'recuperado',
  recoveredMarkHelp: 'Recibido mientras la conexión estaba caída y recuperado cuando volvió',
};

addNamespace(GAP_NS, { pt, en, es });

export function useGapT() {
  return useTranslation(GAP_NS);
}

/** "3 h", "25 min", "2 d": an outage's length, rounded the way people say it. */
export function outageLength(t: (k: string, o: Record<string, unknown>) => string, ms: number) {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return t('minutes', { n: minutes });
  const hours = Math.round(minutes / 60);
  if (hours < 48) return t('hours', { n: hours });
  return t('days', { n: Math.round(hours / 24) });
}
