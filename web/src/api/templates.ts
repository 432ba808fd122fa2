import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MessageTemplate, MessageView, TemplateSendInput } from '@recado/contracts';
import { api } from './client.js';
import { putMessage } from './messages.js';

/** WhatsApp Cloud API message templates of a connection (docs/cloud-api.md). */
export const templateKeys = {
  all: ['templates'] as const,
  list: (whatsappId: number, usable: boolean) => ['templates', whatsappId, usable] as const,
};

/** GET /whatsapp/:id/templates; `usable` keeps approved ones only (pickers). */
export function useTemplates(whatsappId: number | null | undefined, usable: boolean) {
  return useQuery({
    queryKey: templateKeys.list(Number(whatsappId), usable),
    queryFn: () =>
      api.get<MessageTemplate[]>(`/whatsapp/${whatsappId}/templates${usable ? '?usable=true' : ''}`),
    enabled: Boolean(whatsappId),
  });
}

/** POST /whatsapp/:id/templates/sync: read them from Meta now. */
export function useSyncTemplates(whatsappId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<MessageTemplate[]>(`/whatsapp/${whatsappId}/templates/sync`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['templates', whatsappId] }),
  });
}

/** POST /messages/:ticketId with a template: the only send allowed outside the 24-hour window. */
export function useSendTemplate(ticketId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (template: TemplateSendInput) => api.post<MessageView>(`/messages/${ticketId}`, { template }),
    onSuccess: (message) => {
      if (message && typeof message === 'object' && 'id' in message) putMessage(client, message);
    },
  });
}
