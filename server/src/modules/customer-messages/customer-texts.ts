/**
 * The texts Recado itself sends to customers when an attendant acts on a ticket, in one place (they are
 * sent in Portuguese, the product's language for customers). The completion message is the connection's
 * own text (`whatsapps.complationMessage`); rating texts live with the ratings in `@recado/contracts`.
 */
export const customerTexts = {
  /** Setting `sendGreetingAccepted`: an attendant accepted the waiting ticket. */
  greeting: (contactName: string, userName: string) =>
    `Olá, ${contactName}! Meu nome é ${userName} e agora vou atender você.`,
  /** Setting `sendMsgTransfTicket`: the ticket moved to another queue and/or attendant. */
  transferNotice: (queueName?: string, userName?: string) =>
    `Você foi transferido${queueName ? ` para o setor *${queueName}*` : ''}${userName ? ` e será atendido por *${userName}*` : ''}. Aguarde, por favor.`,
};
