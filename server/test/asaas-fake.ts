import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A small local Asaas: the REST endpoints Recado calls (customers, Pix payments and their QR code,
 * subscriptions, payment links) with Asaas's shapes and its `access_token` header, and the webhooks
 * Asaas sends (`{ id, event, payment }` with the `asaas-access-token` header). Tests and the browser
 * test point ASAAS_API_URL at `url`.
 */
export interface FakePayment {
  object: 'payment';
  id: string;
  customer: string;
  value: number;
  netValue: number;
  billingType: string;
  status: string;
  dueDate: string;
  description?: string;
  externalReference?: string | null;
  dateCreated: string;
}

export interface AsaasFake {
  url: string;
  apiKey: string;
  customers: Map<string, Record<string, unknown>>;
  payments: Map<string, FakePayment>;
  subscriptions: Map<string, Record<string, unknown>>;
  paymentLinks: Map<string, Record<string, unknown>>;
  /** Every request the fake received (method, path, access_token). */
  calls: { method: string; path: string; token: string | undefined }[];
  /** While set, requests to this method and path answer this status with an Asaas error body. */
  failing?: { method: string; path: string; status: number };
  /** Where webhooks go, and with which token. */
  webhook: { url: string; token: string };
  /**
   * Sends one webhook event for a payment (status updated like Asaas does) and answers the HTTP status
   * Recado gave. `eventId` repeats a delivery (Asaas delivers at least once).
   */
  send(
    event: string,
    paymentId: string,
    opts?: { eventId?: string; token?: string; payment?: Partial<FakePayment> },
  ): Promise<number>;
  /** The customer pays a Pix charge: RECEIVED, then the PAYMENT_RECEIVED webhook. */
  pay(paymentId: string, opts?: { eventId?: string }): Promise<number>;
  close(): Promise<void>;
}

const STATUS_OF: Record<string, string> = {
  PAYMENT_RECEIVED: 'RECEIVED',
  PAYMENT_CONFIRMED: 'CONFIRMED',
  PAYMENT_OVERDUE: 'OVERDUE',
  PAYMENT_REFUNDED: 'REFUNDED',
  PAYMENT_DELETED: 'DELETED',
};

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => resolve(data));
  });

/** A tiny PNG (1×1) standing in for Asaas's base64 QR image. */
const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export async function asaasFake(
  opts: { apiKey?: string; webhook?: { url: string; token: string }; port?: number } = {},
): Promise<AsaasFake> {
  const apiKey = opts.apiKey ?? `$aact_test_${randomUUID()}`;
  const customers = new Map<string, Record<string, unknown>>();
  const payments = new Map<string, FakePayment>();
  const subscriptions = new Map<string, Record<string, unknown>>();
  const paymentLinks = new Map<string, Record<string, unknown>>();
  const calls: AsaasFake['calls'] = [];
  let seq = 0;
  const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(seq++).toString(36)}`;

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/api\/v3|^\/v3/, '');
    const token = req.headers['access_token'] as string | undefined;
    calls.push({ method: req.method ?? '', path, token });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, description: string) =>
      send(status, { errors: [{ code: 'invalid_action', description }] });
    if (token !== apiKey) return send(401, {});
    const failing = fake.failing;
    if (failing && failing.method === req.method && failing.path === path)
      return error(failing.status, 'Serviço indisponível no momento.');
    const raw = await readBody(req);
    let body: Record<string, unknown> = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return error(400, 'invalid JSON');
    }
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/customers') {
      if (!body.name) return error(400, 'O nome do cliente é obrigatório.');
      const c = { object: 'customer', id: id('cus'), ...body };
      customers.set(c.id, c);
      return send(200, c);
    }
    if (req.method === 'GET' && path === '/customers') {
      const ref = url.searchParams.get('externalReference');
      const data = [...customers.values()].filter((c) => !ref || c.externalReference === ref);
      return send(200, { object: 'list', hasMore: false, totalCount: data.length, data });
    }
    if (req.method === 'GET' && (m = /^\/customers\/([^/]+)$/.exec(path))) {
      const c = customers.get(m[1]!);
      return c ? send(200, c) : error(404, 'not found');
    }
    if (req.method === 'POST' && path === '/payments') {
      if (!customers.has(String(body.customer))) return error(400, 'Cliente inválido.');
      if (!(Number(body.value) > 0)) return error(400, 'Valor inválido.');
      if (!/^\d{4}-\d{2}-\d{2}$/.test(String(body.dueDate)))
        return error(400, 'Data de vencimento inválida.');
      const p: FakePayment = {
        object: 'payment',
        id: id('pay'),
        customer: String(body.customer),
        value: Number(body.value),
        netValue: Number(body.value),
        billingType: String(body.billingType),
        status: 'PENDING',
        dueDate: String(body.dueDate),
        description: body.description as string | undefined,
        externalReference: (body.externalReference as string | undefined) ?? null,
        dateCreated: new Date().toISOString().slice(0, 10),
      };
      payments.set(p.id, p);
      return send(200, p);
    }
    if (req.method === 'GET' && (m = /^\/payments\/([^/]+)\/pixQrCode$/.exec(path))) {
      const p = payments.get(m[1]!);
      if (!p) return error(404, 'not found');
      return send(200, {
        encodedImage: PNG_1x1,
        payload: `00020101021226820014br.gov.bcb.pix2560fake.asaas.local/qr/${p.id}5204000053039865406${p.value.toFixed(2)}5802BR6304ABCD`,
        expirationDate: `${p.dueDate} 23:59:59`,
      });
    }
    if (req.method === 'GET' && (m = /^\/payments\/([^/]+)$/.exec(path))) {
      const p = payments.get(m[1]!);
      return p ? send(200, p) : error(404, 'not found');
    }
    if (req.method === 'POST' && path === '/subscriptions') {
      if (!customers.has(String(body.customer))) return error(400, 'Cliente inválido.');
      const s = { object: 'subscription', id: id('sub'), status: 'ACTIVE', ...body };
      subscriptions.set(s.id, s);
      return send(200, s);
    }
    if (req.method === 'POST' && path === '/paymentLinks') {
      if (!body.name) return error(400, 'O nome é obrigatório.');
      const lid = id('link');
      const l = { id: lid, url: `${fake.url}/c/${lid}`, active: true, ...body };
      paymentLinks.set(lid, l);
      return send(200, l);
    }
    return error(404, `no route ${req.method} ${path}`);
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', () => r()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const fake: AsaasFake = {
    url: `http://127.0.0.1:${port}/api/v3`,
    apiKey,
    customers,
    payments,
    subscriptions,
    paymentLinks,
    calls,
    webhook: opts.webhook ?? { url: '', token: '' },
    async send(event, paymentId, o = {}) {
      const p = payments.get(paymentId);
      if (!p) throw new Error(`no payment ${paymentId}`);
      if (STATUS_OF[event]) p.status = STATUS_OF[event]!;
      const res = await fetch(fake.webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'asaas-access-token': o.token ?? fake.webhook.token,
        },
        body: JSON.stringify({
          id: o.eventId ?? `evt_${randomUUID().replace(/-/g, '')}&${seq++}`,
          event,
          dateCreated: new Date().toISOString().replace('T', ' ').slice(0, 19),
          payment: { ...p, ...o.payment },
        }),
      });
      await res.arrayBuffer();
      return res.status;
    },
    pay: (paymentId, o) => fake.send('PAYMENT_RECEIVED', paymentId, o),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  return fake;
}
