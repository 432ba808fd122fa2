import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  RESOURCES,
  type Webhook,
  type WebhookDeliveryPage,
  type WebhookInput,
  type WebhookSecret,
} from '@recado/contracts';
import { api } from './client.js';
import { defineResource } from './resource.js';

export const webhookKeys = {
  all: ['webhooks'] as const,
  deliveries: (id: number) => ['webhooks', id, 'deliveries'] as const,
};

/** The company's webhooks (one unpaged list, by id), live through `company-{id}-webhook`. */
export const webhookResource = defineResource<Webhook, WebhookInput>({
  spec: RESOURCES.webhook,
  listsKey: webhookKeys.all,
  paged: false,
  compare: (a, b) => a.id - b.id,
});

export function useSaveWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id?: number; input: WebhookInput }) =>
      id
        ? api.put<Webhook>(`/webhooks/${id}`, input)
        : api.post<Webhook & Partial<WebhookSecret>>('/webhooks', input),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKeys.all }),
  });
}

export function useDeleteWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`/webhooks/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKeys.all }),
  });
}

export const revealWebhookSecret = (id: number) => api.get<WebhookSecret>(`/webhooks/${id}/secret`);
export const regenerateWebhookSecret = (id: number) => api.post<WebhookSecret>(`/webhooks/${id}/secret`);

export function useDeliveries(id: number | null) {
  return useQuery({
    queryKey: webhookKeys.deliveries(id ?? 0),
    queryFn: () => api.get<WebhookDeliveryPage>(`/webhooks/${id}/deliveries`),
    enabled: Boolean(id),
    refetchInterval: 5000,
  });
}

export function useResend(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: number) => api.post(`/webhooks/${id}/deliveries/${deliveryId}/resend`),
    onSuccess: () => client.invalidateQueries({ queryKey: webhookKeys.deliveries(id) }),
  });
}
