/**
 * A client for Asaas's REST API v3 (https://docs.asaas.com): customers, Pix payments and their QR code,
 * subscriptions and payment links. Authenticated by the platform's API key in the `access_token` header.
 * The base URL is ASAAS_API_URL (sandbox https://sandbox.asaas.com/api/v3, production
 * https://api.asaas.com/v3); tests point it at server/test/asaas-fake.ts.
 */
export interface AsaasCustomer {
  id: string;
  name: string;
  email?: string | null;
  cpfCnpj?: string | null;
  externalReference?: string | null;
}
export interface AsaasPayment {
  id: string;
  customer: string;
  value: number;
  status: string;
  billingType: string;
  dueDate: string;
  externalReference?: string | null;
  invoiceUrl?: string | null;
}
export interface AsaasPixQrCode {
  encodedImage: string;
  payload: string;
  expirationDate?: string | null;
}
export interface AsaasSubscription {
  id: string;
  customer: string;
  value: number;
  cycle: string;
  nextDueDate: string;
  status?: string;
}
export interface AsaasPaymentLink {
  id: string;
  url: string;
  name: string;
  value?: number | null;
}

export class AsaasError extends Error {
  constructor(
    public readonly status: number,
    public readonly description: string,
  ) {
    super(`Asaas answered ${status}: ${description}`);
  }
}

/** Our recurrences as Asaas subscription cycles. */
export const ASAAS_CYCLES: Record<string, string> = {
  MENSAL: 'MONTHLY',
  BIMESTRAL: 'BIMONTHLY',
  TRIMESTRAL: 'QUARTERLY',
  SEMESTRAL: 'SEMIANNUALLY',
  ANUAL: 'YEARLY',
};

export function asaasClient(opts: { baseUrl: string; apiKey: string; timeoutMs?: number }) {
  const base = opts.baseUrl.replace(/\/+$/, '');
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        access_token: opts.apiKey,
        accept: 'application/json',
        'user-agent': 'Recado',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new AsaasError(res.status, 'not JSON');
    }
    if (!res.ok) {
      // Asaas answers { errors: [{ code, description }] }.
      const errors = (json as { errors?: { description?: string }[] }).errors;
      throw new AsaasError(res.status, errors?.map((e) => e.description).join('; ') || res.statusText);
    }
    return json as T;
  }
  const q = (params: Record<string, string | undefined>) => {
    const s = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) s.set(k, v);
    return s.toString();
  };

  return {
    createCustomer: (c: {
      name: string;
      cpfCnpj?: string;
      email?: string;
      mobilePhone?: string;
      postalCode?: string;
      address?: string;
      province?: string;
      externalReference?: string;
    }) => call<AsaasCustomer>('POST', '/customers', c),
    getCustomer: (id: string) => call<AsaasCustomer>('GET', `/customers/${encodeURIComponent(id)}`),
    findCustomers: (params: { externalReference?: string; email?: string; cpfCnpj?: string }) =>
      call<{ data: AsaasCustomer[]; hasMore: boolean }>('GET', `/customers?${q(params)}`),
    createPixPayment: (p: {
      customer: string;
      value: number;
      dueDate: string;
      description?: string;
      externalReference?: string;
    }) => call<AsaasPayment>('POST', '/payments', { ...p, billingType: 'PIX' }),
    getPayment: (id: string) => call<AsaasPayment>('GET', `/payments/${encodeURIComponent(id)}`),
    pixQrCode: (paymentId: string) =>
      call<AsaasPixQrCode>('GET', `/payments/${encodeURIComponent(paymentId)}/pixQrCode`),
    createSubscription: (s: {
      customer: string;
      value: number;
      nextDueDate: string;
      cycle: string;
      description?: string;
      externalReference?: string;
      billingType?: string;
    }) => call<AsaasSubscription>('POST', '/subscriptions', { billingType: 'PIX', ...s }),
    createPaymentLink: (l: {
      name: string;
      value?: number;
      description?: string;
      billingType?: string;
      chargeType?: 'DETACHED' | 'RECURRENT' | 'INSTALLMENT';
      subscriptionCycle?: string;
      dueDateLimitDays?: number;
      externalReference?: string;
    }) =>
      call<AsaasPaymentLink>('POST', '/paymentLinks', {
        billingType: 'PIX',
        chargeType: 'RECURRENT',
        dueDateLimitDays: 3,
        ...l,
      }),
  };
}
export type AsaasClient = ReturnType<typeof asaasClient>;
