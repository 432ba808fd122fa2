import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Test double of Meta's Graph API for the WhatsApp Cloud API, on a real local port. It answers the way Meta
 * does (wamid ids, media ids, media URLs that need the bearer token, Graph error objects) and records
 * every request so tests can assert what went over the wire.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  contentType: string | undefined;
  /** Parsed JSON body (JSON requests). */
  json?: Record<string, unknown>;
  /** Parsed multipart fields (uploads); files as { type, name, data }. */
  form?: Record<string, string | { type: string; name: string; data: Buffer }>;
}

export interface FakeGraph {
  url: string;
  token: string;
  phoneNumberId: string;
  displayPhoneNumber: string;
  requests: RecordedRequest[];
  /** Numbers Meta refuses to send to. */
  badNumbers: Set<string>;
  /** Media Meta holds (uploaded, or received from customers). */
  media: Map<string, { data: Buffer; mimetype: string }>;
  /** The `url` Graph names for a media id, when a test wants another one than this server's own. */
  mediaUrls: Map<string, string>;
  addMedia(data: Buffer, mimetype: string): string;
  /** The WhatsApp Business Account id whose message_templates edge answers. */
  wabaId: string;
  /** The account's templates, as Graph lists them; listed `templatePageSize` a page with cursors. */
  templates: GraphTemplate[];
  templatePageSize: number;
  /** Errors the next sends answer, one each, in order (e.g. { code: 130429 } for Meta's rate limit). */
  sendErrors: SendError[];
  /** Errors a recipient's sends answer every time (e.g. 131026 for a number that cannot get messages). */
  recipientErrors: Map<string, SendError>;
  /**
   * Asked before each send is accepted (after badNumbers, sendErrors, recipientErrors): an error to answer
   * instead, e.g. a rate limit after the 200th send. `accepted` is how many sends were accepted so far.
   */
  onSend?: (to: string, accepted: number) => SendError | undefined;
  /** Every send Meta accepted, in order: who, which wamid, and the message's type and content. */
  accepted: { to: string; id: string; type: string; body: Record<string, unknown> }[];
  /**
   * #34 The Messenger Platform side (Instagram Direct and Messenger): the page and the Instagram account the
   * token speaks for, customers' profiles, attachments Meta's CDN serves to the webhook (no token needed),
   * and every Send API call accepted.
   */
  pageId: string;
  instagramAccountId: string;
  /** Profiles by PSID/IGSID (Messenger: first_name/last_name; Instagram: name/username). */
  profiles: Map<string, Record<string, string>>;
  /** A file on Meta's CDN: the URL a webhook attachment names (`name` ends the path). */
  cdnFile(data: Buffer, mimetype: string, name: string): string;
  /** Attachments uploaded through /me/message_attachments, by attachment id. */
  attachments: Map<string, { type: string; data: Buffer; mimetype: string; name: string }>;
  /** Send API calls accepted (messages; sender actions are only recorded in `requests`). */
  messengerSent: {
    recipient: string;
    mid: string;
    messagingType: string;
    tag?: string;
    message: Record<string, unknown>;
  }[];
  close(): Promise<void>;
}

/**
 * A template as Graph lists it (the same shape as graph-client's GraphTemplate, kept here so the browser
 * tests can import the double without the server's fetch code).
 */
export interface GraphTemplate {
  id?: string;
  name?: string;
  language?: string;
  category?: string;
  status?: string;
  components?: { type: string; format?: string; text?: string; buttons?: unknown[]; example?: unknown }[];
}

/** An error answer of a send: Graph's code and message, HTTP 400 unless `status` says otherwise. */
export interface SendError {
  code: number;
  message: string;
  status?: number;
  details?: string;
}

/** Named variables of a text: {{1}}, {{2}}… */
const variableCount = (text: string | undefined) =>
  new Set([...(text ?? '').matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((m) => m[1])).size;

const graphError = (message: string, code: number, type = 'OAuthException', details?: string) => ({
  error: {
    message,
    type,
    code,
    ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
    fbtrace_id: randomBytes(8).toString('base64url'),
  },
});

interface Interactive {
  type?: string;
  body?: { text?: string };
  action?: {
    button?: string;
    buttons?: { type?: string; reply?: { id?: string; title?: string } }[];
    sections?: { title?: string; rows?: { id?: string; title?: string; description?: string }[] }[];
  };
}

/** Meta's rules for reply buttons and list messages (what it refuses with #131009), or null. */
function interactiveProblem(i: Interactive): string | null {
  const text = i.body?.text ?? '';
  if (!text.trim()) return 'body.text is required';
  if (i.type === 'button') {
    const buttons = i.action?.buttons ?? [];
    if (buttons.length < 1 || buttons.length > 3) return 'buttons must be 1 to 3';
    if (text.length > 1024) return 'body.text is longer than 1024';
    const ids = new Set<string>();
    for (const b of buttons) {
      if (b.type !== 'reply' || !b.reply?.id || !b.reply.title)
        return 'a button needs type reply, id and title';
      if (b.reply.title.length > 20) return 'a button title is longer than 20';
      if (b.reply.id.length > 256 || ids.has(b.reply.id)) return 'button ids must be unique, at most 256';
      ids.add(b.reply.id);
    }
    return null;
  }
  if (i.type === 'list') {
    const sections = i.action?.sections ?? [];
    const rows = sections.flatMap((x) => x.rows ?? []);
    if (!i.action?.button || i.action.button.length > 20) return 'action.button is required, at most 20';
    if (!sections.length || sections.length > 10) return 'sections must be 1 to 10';
    if (sections.length > 1 && sections.some((x) => !x.title)) return 'several sections need titles';
    if (rows.length < 1 || rows.length > 10) return 'rows must be 1 to 10';
    if (text.length > 4096) return 'body.text is longer than 4096';
    const ids = new Set<string>();
    for (const r of rows) {
      if (!r.id || !r.title) return 'a row needs id and title';
      if (r.title.length > 24) return 'a row title is longer than 24';
      if ((r.description ?? '').length > 72) return 'a row description is longer than 72';
      if (r.id.length > 200 || ids.has(r.id)) return 'row ids must be unique, at most 200';
      ids.add(r.id);
    }
    return null;
  }
  return `interactive type ${i.type} is not supported here`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeGraph(
  opts: { token?: string; phoneNumberId?: string; version?: string; port?: number } = {},
): Promise<FakeGraph> {
  const token = opts.token ?? `EAAG${randomBytes(16).toString('hex')}`;
  const phoneNumberId = opts.phoneNumberId ?? '106540352242922';
  const version = opts.version ?? 'v21.0';
  const requests: RecordedRequest[] = [];
  const badNumbers = new Set<string>();
  const media = new Map<string, { data: Buffer; mimetype: string }>();
  const mediaUrls = new Map<string, string>();
  let nextMediaId = 1_000_000_000_000_000;
  const addMedia = (data: Buffer, mimetype: string) => {
    const id = String(nextMediaId++);
    media.set(id, { data, mimetype });
    return id;
  };
  let base = '';
  const wabaId = '102290129340398';
  const fake = {
    templates: [] as GraphTemplate[],
    templatePageSize: 2,
    sendErrors: [] as FakeGraph['sendErrors'],
    recipientErrors: new Map<string, SendError>(),
    onSend: undefined as FakeGraph['onSend'],
    accepted: [] as FakeGraph['accepted'],
  };
  const accept = (to: string, type: string, body: Record<string, unknown>) => {
    const id = `wamid.HBgM${randomBytes(18).toString('base64url')}`;
    fake.accepted.push({ to, id, type, body });
    return id;
  };

  // #34 The Messenger Platform (Send API, attachment upload, profiles, the page and the Instagram account).
  const pageId = '110200300400500';
  const instagramAccountId = '17841400000000001';
  const profiles = new Map<string, Record<string, string>>();
  const cdnFiles = new Map<string, { data: Buffer; mimetype: string }>();
  const attachments = new Map<string, { type: string; data: Buffer; mimetype: string; name: string }>();
  const messengerSent: FakeGraph['messengerSent'] = [];
  let nextCdn = 1;
  let nextAttachment = 5_000_000_000_000_000;
  const ATTACHMENT_TYPES = new Set(['image', 'audio', 'video', 'file']);
  const TAGS = new Set(['HUMAN_AGENT', 'CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE']);

  /** Meta's Messenger Platform answers, or undefined when the request is not one of its calls. */
  function messengerRoute(
    method: string,
    id: string | undefined,
    edge: string | undefined,
    rec: RecordedRequest,
    url: URL,
  ): { status: number; body: unknown } | undefined {
    const ok = (body: unknown) => ({ status: 200, body });
    const bad = (message: string, code = 100) => ({ status: 400, body: graphError(message, code) });
    if (method === 'GET' && !edge && id === pageId) return ok({ id: pageId, name: 'Recado Test Page' });
    if (method === 'GET' && !edge && id === instagramAccountId)
      return ok({ id: instagramAccountId, username: 'recado.test', name: 'Recado Test' });
    if (method === 'GET' && !edge && id && profiles.has(id)) {
      const p = profiles.get(id)!;
      const fields = (url.searchParams.get('fields') ?? '').split(',').filter(Boolean);
      const unknown = fields.find((f) => !(f in p) && !['id', 'profile_pic'].includes(f));
      if (unknown) return bad(`(#100) Tried accessing nonexisting field (${unknown}) on node type (User)`);
      return ok({ id, ...Object.fromEntries(fields.filter((f) => f in p).map((f) => [f, p[f]])) });
    }
    const me = id === 'me' || id === pageId || id === instagramAccountId;
    if (method === 'POST' && me && edge === 'message_attachments') {
      const file = rec.form?.filedata;
      let message: { attachment?: { type?: string; payload?: { is_reusable?: boolean } } } = {};
      try {
        message = JSON.parse(typeof rec.form?.message === 'string' ? rec.form.message : '{}');
      } catch {
        return bad('(#100) Param message must be JSON');
      }
      const type = message.attachment?.type ?? '';
      if (!file || typeof file === 'string') return bad('(#100) Upload attachment failure: filedata missing');
      if (!ATTACHMENT_TYPES.has(type))
        return bad('(#100) Param message[attachment][type] must be one of {image, audio, video, file}');
      const attachmentId = String(nextAttachment++);
      attachments.set(attachmentId, { type, data: file.data, mimetype: file.type, name: file.name });
      return ok({ attachment_id: attachmentId });
    }
    if (method === 'POST' && me && edge === 'messages') {
      const body = (rec.json ?? {}) as {
        recipient?: { id?: string };
        messaging_type?: string;
        tag?: string;
        message?: Record<string, unknown> & {
          text?: string;
          attachment?: { type?: string; payload?: { attachment_id?: string; url?: string } };
        };
        sender_action?: string;
      };
      const recipient = body.recipient?.id ?? '';
      if (!recipient) return bad('(#100) The parameter recipient is required');
      if (badNumbers.has(recipient)) return bad('(#100) No matching user found', 100);
      if (body.sender_action) return ok({ recipient_id: recipient });
      if (!['RESPONSE', 'UPDATE', 'MESSAGE_TAG'].includes(body.messaging_type ?? ''))
        return bad('(#100) Param messaging_type must be one of {RESPONSE, UPDATE, MESSAGE_TAG}');
      if (body.messaging_type === 'MESSAGE_TAG' && !TAGS.has(body.tag ?? ''))
        return bad('(#100) Param tag must be a valid message tag');
      const failure = fake.sendErrors.shift() ?? fake.recipientErrors.get(recipient);
      if (failure)
        return {
          status: failure.status ?? 400,
          body: graphError(failure.message, failure.code, 'OAuthException', failure.details),
        };
      const m = body.message;
      if (!m || (typeof m.text !== 'string' && !m.attachment))
        return bad('(#100) Param message must be non-empty');
      if (typeof m.text === 'string' && (!m.text || m.text.length > 2000))
        return bad('(#100) Param message[text] must be 1 to 2000 characters');
      if (m.attachment) {
        const a = m.attachment;
        if (!ATTACHMENT_TYPES.has(a.type ?? '')) return bad('(#100) Invalid attachment type');
        if (a.payload?.attachment_id && !attachments.has(a.payload.attachment_id))
          return bad('(#100) Attachment id does not exist', 100);
        if (!a.payload?.attachment_id && !a.payload?.url) return bad('(#100) Attachment payload required');
      }
      const mid = `m_${randomBytes(24).toString('base64url')}`;
      messengerSent.push({
        recipient,
        mid,
        messagingType: body.messaging_type!,
        ...(body.tag ? { tag: body.tag } : {}),
        message: m,
      });
      return ok({ recipient_id: recipient, message_id: mid });
    }
    return undefined;
  }

  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const url = new URL(req.url ?? '/', base);
      const raw = await readBody(req);
      const contentType = req.headers['content-type'];
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        authorization: req.headers.authorization,
        contentType,
      };
      if (contentType?.startsWith('application/json')) rec.json = JSON.parse(raw.toString('utf8'));
      if (contentType?.startsWith('multipart/form-data')) {
        const form = await new Request(url, {
          method: 'POST',
          headers: { 'content-type': contentType },
          body: new Uint8Array(raw),
        }).formData();
        rec.form = {};
        for (const [k, v] of form.entries())
          rec.form[k] =
            typeof v === 'string'
              ? v
              : { type: v.type, name: v.name, data: Buffer.from(await v.arrayBuffer()) };
      }
      requests.push(rec);

      // Meta's CDN (attachments of webhook events): signed URLs, no bearer token.
      const cdn = /^\/cdn\/(\d+)\//.exec(url.pathname);
      if (cdn && req.method === 'GET') {
        const f = cdnFiles.get(cdn[1]!);
        if (!f) return send(404, { error: 'not found' });
        res.writeHead(200, { 'content-type': f.mimetype, 'content-length': f.data.length });
        return res.end(f.data);
      }

      if (req.headers.authorization !== `Bearer ${token}`)
        return send(401, graphError('Invalid OAuth access token - Cannot parse access token', 190));

      // The media bytes themselves (Meta serves them from lookaside.fbsbx.com, bearer required).
      const download = /^\/media-download\/(\d+)$/.exec(url.pathname);
      if (download && req.method === 'GET') {
        const m = media.get(download[1]!);
        if (!m) return send(404, graphError('Media not found', 100, 'GraphMethodException'));
        res.writeHead(200, { 'content-type': m.mimetype, 'content-length': m.data.length });
        return res.end(m.data);
      }

      const parts = url.pathname.split('/').filter(Boolean);
      if (parts[0] !== version) return send(400, graphError('Unknown path components', 2500));
      const [, id, edge] = parts;

      const messenger = messengerRoute(req.method ?? 'GET', id, edge, rec, url);
      if (messenger) return send(messenger.status, messenger.body);

      if (req.method === 'POST' && id === phoneNumberId && edge === 'messages') {
        const body = rec.json ?? {};
        if (body.messaging_product !== 'whatsapp')
          return send(400, graphError('(#100) The parameter messaging_product is required.', 100));
        if (body.status === 'read') return send(200, { success: true });
        const to = String(body.to ?? '');
        if (!to || badNumbers.has(to))
          return send(
            400,
            graphError(
              '(#131030) Recipient phone number not in allowed list',
              131030,
              'OAuthException',
              'Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.',
            ),
          );
        const failure =
          fake.sendErrors.shift() ?? fake.recipientErrors.get(to) ?? fake.onSend?.(to, fake.accepted.length);
        if (failure)
          return send(
            failure.status ?? 400,
            graphError(failure.message, failure.code, 'OAuthException', failure.details),
          );
        const type = String(body.type ?? 'text');
        if (type === 'template') {
          const tpl = body.template as
            | {
                name?: string;
                language?: { code?: string };
                components?: { type: string; parameters?: unknown[] }[];
              }
            | undefined;
          const known = fake.templates.find(
            (x) => x.name === tpl?.name && x.language === tpl?.language?.code,
          );
          if (!known || known.status !== 'APPROVED')
            return send(
              404,
              graphError(
                '(#132001) Template name does not exist in the translation',
                132001,
                'OAuthException',
                `template name (${tpl?.name}) does not exist in ${tpl?.language?.code}`,
              ),
            );
          // Meta checks the parameter count of every component against the template's variables.
          for (const c of known.components ?? []) {
            const want =
              c.type === 'BODY' || (c.type === 'HEADER' && c.format === 'TEXT') ? variableCount(c.text) : 0;
            const media = c.type === 'HEADER' && c.format && c.format !== 'TEXT' ? 1 : 0;
            const given =
              tpl?.components?.find((p) => p.type.toLowerCase() === c.type.toLowerCase())?.parameters
                ?.length ?? 0;
            if (given !== want + media)
              return send(
                400,
                graphError(
                  '(#132000) Number of parameters does not match the expected number of params',
                  132000,
                ),
              );
          }
          return send(200, {
            messaging_product: 'whatsapp',
            contacts: [{ input: to, wa_id: to }],
            messages: [{ id: accept(to, type, body), message_status: 'accepted' }],
          });
        }
        const content = body[type] as { id?: string } | undefined;
        if (!content) return send(400, graphError(`(#100) Param ${type} is required`, 100));
        if (type === 'reaction') {
          // Meta's reaction message: the wamid reacted to, and one emoji ('' removes the reaction).
          const r = content as { message_id?: unknown; emoji?: unknown };
          if (typeof r.message_id !== 'string' || !r.message_id)
            return send(400, graphError("(#100) Param reaction['message_id'] is required", 100));
          if (typeof r.emoji !== 'string')
            return send(400, graphError("(#100) Param reaction['emoji'] is required", 100));
          if (r.emoji !== '' && !/^\p{Extended_Pictographic}|^\p{Regional_Indicator}/u.test(r.emoji))
            return send(400, graphError('(#131009) Parameter value is not valid: emoji', 131009));
          return send(200, {
            messaging_product: 'whatsapp',
            contacts: [{ input: to, wa_id: to }],
            messages: [{ id: accept(to, type, body) }],
          });
        }
        if (type === 'interactive') {
          const why = interactiveProblem(content as Interactive);
          if (why) return send(400, graphError(`(#131009) Parameter value is not valid: ${why}`, 131009));
        }
        if (type !== 'text' && content.id && !media.has(content.id))
          return send(400, graphError('(#131053) Media upload error', 131053));
        return send(200, {
          messaging_product: 'whatsapp',
          contacts: [{ input: to, wa_id: to }],
          messages: [{ id: accept(to, type, body) }],
        });
      }

      if (req.method === 'GET' && id === wabaId && edge === 'message_templates') {
        // Cursor paging as Graph does it: cursors.before/after, and `next` only while more remain.
        const start = Number(Buffer.from(url.searchParams.get('after') ?? '', 'base64url').toString() || 0);
        const size = fake.templatePageSize;
        const page = fake.templates.slice(start, start + size);
        const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
        const more = start + size < fake.templates.length;
        return send(200, {
          data: page,
          paging: {
            cursors: { before: cursor(start), after: cursor(start + page.length) },
            ...(more
              ? {
                  next: `${base}/${version}/${wabaId}/message_templates?limit=${size}&after=${cursor(start + page.length)}`,
                }
              : {}),
          },
        });
      }

      if (req.method === 'POST' && id === phoneNumberId && edge === 'media') {
        const file = rec.form?.file;
        if (rec.form?.messaging_product !== 'whatsapp' || !file || typeof file === 'string')
          return send(400, graphError('(#100) The parameter file is required.', 100));
        return send(200, { id: addMedia(file.data, file.type) });
      }

      if (req.method === 'GET' && id === phoneNumberId && !edge)
        return send(200, {
          display_phone_number: '+1 555-078-3881',
          verified_name: 'Recado Test',
          id: phoneNumberId,
        });

      if (req.method === 'GET' && id && !edge && media.has(id)) {
        const m = media.get(id)!;
        return send(200, {
          messaging_product: 'whatsapp',
          url: mediaUrls.get(id) ?? `${base}/media-download/${id}`,
          mime_type: m.mimetype,
          sha256: createHash('sha256').update(m.data).digest('hex'),
          file_size: m.data.length,
          id,
        });
      }

      return send(
        400,
        graphError(
          `Unsupported ${req.method} request. Object with ID '${id}' does not exist`,
          100,
          'GraphMethodException',
        ),
      );
    } catch (err) {
      send(500, graphError(`fake graph failure: ${(err as Error).message}`, 1, 'OAuthException'));
    }
  });

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    token,
    phoneNumberId,
    displayPhoneNumber: '15550783881',
    requests,
    badNumbers,
    media,
    mediaUrls,
    addMedia,
    wabaId,
    get templates() {
      return fake.templates;
    },
    set templates(v) {
      fake.templates = v;
    },
    get templatePageSize() {
      return fake.templatePageSize;
    },
    set templatePageSize(v) {
      fake.templatePageSize = v;
    },
    sendErrors: fake.sendErrors,
    recipientErrors: fake.recipientErrors,
    get onSend() {
      return fake.onSend;
    },
    set onSend(v) {
      fake.onSend = v;
    },
    accepted: fake.accepted,
    pageId,
    instagramAccountId,
    profiles,
    cdnFile(data: Buffer, mimetype: string, name: string) {
      const id = String(nextCdn++);
      cdnFiles.set(id, { data, mimetype });
      return `${base}/cdn/${id}/${encodeURIComponent(name)}`;
    },
    attachments,
    messengerSent,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
