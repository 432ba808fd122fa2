import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import {
  INVOICE_RESOURCE,
  containsSearch,
  type CheckoutInput,
  type Invoice,
  type PaymentEvent,
  type PixCharge,
  type Plan,
} from '@recado/contracts';
import { api, request } from './client.js';
import { defineResource } from './resource.js';
import { useCompanyEvent } from '../realtime/useCompanyEvent.js';

export const invoiceKeys = { pages: () => ['invoices', 'page'] as const };

/** Server order of GET /invoices/all: latest dueDate first, then id. */
const byDueDate = (a: Invoice, b: Invoice) => b.dueDate.localeCompare(a.dueDate) || b.id - a.id;

export const invoiceResource = defineResource<Invoice>({
  spec: INVOICE_RESOURCE,
  listsKey: invoiceKeys.pages(),
  paged: true,
  compare: byDueDate,
  matches: (search, i) => !search || containsSearch(`${i.detail} ${i.status} ${i.dueDate}`, search),
});

/** Every payment event (CONCLUIDA, OVERDUE…) refetches the invoices; `onPayment` hears it too. */
export function usePaymentEvents(onPayment?: (e: PaymentEvent) => void) {
  const client = useQueryClient();
  const latest = useRef(onPayment);
  latest.current = onPayment;
  useCompanyEvent('payment', (e) => {
    void client.invalidateQueries({ queryKey: invoiceKeys.pages() });
    latest.current?.(e);
  });
}

export const useCheckout = () =>
  useMutation({ mutationFn: (body: CheckoutInput) => api.post<PixCharge>('/subscription', body) });

/** The trial upgrade: a payment link opened in a new tab. */
export const fetchPaymentLink = () => api.get<{ paymentLink: string }>('/asaas/subscriptions/link');

export const usePublicPlans = (enabled = true) =>
  useQuery({
    queryKey: ['plans', 'public'],
    queryFn: ({ signal }) => request<Plan[]>('GET', '/plans/list', { anonymous: true, signal }),
    enabled,
    staleTime: 60_000,
  });
