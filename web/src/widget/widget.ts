/**
 * #34.1 Recado's website chat widget (docs/channels.md "Website chat"), served as /widget.js.
 * A site embeds `<script src="https://<recado>/widget.js" data-widget="<public id>" async></script>`.
 * No framework on the host page: everything lives in a shadow root (styles included, through a constructed
 * stylesheet: no inline script, no eval, no inline style the page's CSP would have to allow); texts are set
 * with textContent only. Messages travel over socket.io's /widget namespace (WebSocket only).
 */
import { io, type Socket } from 'socket.io-client';
import { texts, type Texts } from './widget-texts';

interface Config {
  publicId: string;
  color: string;
  position: 'left' | 'right';
  title: string;
  greeting: string;
  preChatForm: boolean;
  preChatContact: 'email' | 'phone' | 'either';
  consentText: string;
  offlineForm: boolean;
  online: boolean;
  limits: { messageChars: number; fileBytes: number; perMinute: number };
}
interface Message {
  id: string;
  fromVisitor: boolean;
  body: string;
  media: { url: string; mimetype: string; filename: string; size: number } | null;
  read: boolean;
  createdAt: string;
}
interface Stored {
  visitorId: string;
  visitorToken: string;
  offline?: boolean;
}

const FILE_TYPES =
  /^(image\/(png|jpeg|gif|webp)|application\/pdf|text\/plain|audio\/[\w.+-]+|video\/(mp4|webm)|application\/(msword|vnd\.openxmlformats-officedocument\.[\w.+-]+|vnd\.ms-excel|zip))$/;

const CSS = `
:host{all:initial}
*{box-sizing:border-box;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:14px}
.bubble{position:fixed;bottom:20px;width:56px;height:56px;border-radius:50%;border:0;cursor:pointer;color:#fff;
box-shadow:0 4px 14px rgba(0,0,0,.25);display:flex;align-items:center;justify-content:center;z-index:2147483000}
.bubble svg{width:28px;height:28px;fill:currentColor}
.panel{position:fixed;bottom:88px;width:360px;max-width:calc(100vw - 24px);height:520px;max-height:calc(100vh - 110px);
background:#fff;color:#1f2328;border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.3);display:flex;flex-direction:column;
overflow:hidden;z-index:2147483000}
.left{left:20px}.right{right:20px}
.hidden{display:none}
.head{color:#fff;padding:12px 14px;display:flex;align-items:center;gap:8px}
.head b{flex:1;font-size:15px}
.head button{background:transparent;border:0;color:#fff;font-size:20px;cursor:pointer;line-height:1}
.body{flex:1;overflow-y:auto;padding:12px;background:#f5f6f8;display:flex;flex-direction:column;gap:6px}
.msg{max-width:80%;padding:8px 10px;border-radius:10px;white-space:pre-wrap;word-wrap:break-word;background:#fff;
align-self:flex-start;box-shadow:0 1px 1px rgba(0,0,0,.08)}
.msg.me{align-self:flex-end;color:#fff}
.msg img{max-width:100%;border-radius:6px;display:block}
.msg a{color:inherit}
.meta{font-size:11px;opacity:.75;text-align:right;margin-top:2px}
.note{font-size:12px;color:#6b7280;text-align:center;padding:4px}
.err{font-size:12px;color:#b42318;background:#fef3f2;padding:6px 10px}
.typing{font-size:12px;color:#6b7280;padding:0 12px 4px;min-height:16px;background:#f5f6f8}
form.send{display:flex;gap:6px;padding:8px;border-top:1px solid #e5e7eb;align-items:flex-end}
textarea,input[type=text],input[type=email],input[type=tel]{width:100%;border:1px solid #d0d5dd;border-radius:8px;padding:8px;
resize:none;color:#1f2328;background:#fff}
textarea{height:40px}
.btn{border:0;border-radius:8px;color:#fff;padding:9px 12px;cursor:pointer;font-weight:600}
.icon{background:transparent;border:0;cursor:pointer;padding:8px;color:#6b7280;font-size:18px}
form.form{padding:14px;display:flex;flex-direction:column;gap:10px;overflow-y:auto;flex:1}
label{display:flex;flex-direction:column;gap:4px;font-size:13px;color:#374151}
label.check{flex-direction:row;align-items:flex-start;gap:8px}
@media (prefers-color-scheme:dark){.panel{background:#1f2328;color:#e6edf3}.body,.typing{background:#161b22}
.msg{background:#2d333b;color:#e6edf3}textarea,input[type=text],input[type=email],input[type=tel]{background:#0d1117;
color:#e6edf3;border-color:#444c56}label{color:#c9d1d9}form.send{border-color:#30363d}}
`;

const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z"/></svg>';

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<string, string>> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) if (v !== undefined) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

/** WhatsApp-style *bold* (the attendant's signature) as <b>, everything else as plain text nodes. */
function formatted(body: string): (Node | string)[] {
  return body.split(/\*([^*\n]+)\*/).map((part, i) => (i % 2 ? el('b', {}, part) : part));
}

function start(script: HTMLScriptElement) {
  const publicId = script.getAttribute('data-widget') ?? '';
  const base = new URL(script.src, location.href).origin;
  const api = `${base}/api/widget/${encodeURIComponent(publicId)}`;
  const key = `recado-widget:${publicId}`;
  const t: Texts = texts(navigator.language);
  let stored: Stored | null = null;
  try {
    stored = JSON.parse(localStorage.getItem(key) ?? 'null') as Stored | null;
  } catch {
    stored = null;
  }

  void fetch(`${api}/config`)
    .then((r) => (r.ok ? (r.json() as Promise<Config>) : Promise.reject(new Error(String(r.status)))))
    .then(render, (err: unknown) => console.warn('Recado widget: not available here', err));

  function render(cfg: Config) {
    const host = el('div', { 'data-recado-widget': publicId });
    const root = host.attachShadow({ mode: 'open' });
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      root.adoptedStyleSheets = [sheet];
    } catch {
      root.append(el('style', {}, CSS));
    }
    document.body.append(host);
    const side = cfg.position === 'left' ? 'left' : 'right';
    const bubble = el('button', { class: `bubble ${side}`, 'aria-label': t.open, part: 'bubble' });
    bubble.style.background = cfg.color;
    // A fixed icon of our own (no user data): parsed once from a constant.
    bubble.append(new DOMParser().parseFromString(ICON, 'image/svg+xml').documentElement);
    const panel = el('div', {
      class: `panel ${side} hidden`,
      role: 'dialog',
      'aria-label': cfg.title || t.title,
    });
    const head = el('div', { class: 'head' }, el('b', {}, cfg.title || t.title));
    head.style.background = cfg.color;
    const close = el('button', { 'aria-label': t.close }, '×');
    head.append(close);
    const content = el('div', { class: 'body' });
    const errorBar = el('div', { class: 'err hidden', role: 'alert' });
    panel.append(head, errorBar, content);
    root.append(panel, bubble);

    let socket: Socket | null = null;
    let opened = false;
    const shown = new Map<string, HTMLElement>();
    const blobUrls: string[] = [];

    const showError = (text: string) => {
      errorBar.textContent = text;
      errorBar.classList.remove('hidden');
    };
    const clearError = () => errorBar.classList.add('hidden');
    const errorText = (code: string | undefined) =>
      code === 'ERR_RATE_LIMITED'
        ? t.rateLimited
        : code === 'ERR_FILE_TOO_LARGE'
          ? t.fileTooLarge(cfg.limits.fileBytes)
          : code === 'ERR_FILE_TYPE_NOT_ALLOWED'
            ? t.fileType
            : code === 'ERR_VALIDATION'
              ? t.invalid
              : t.failed;
    const auth = () => ({ authorization: `Bearer ${stored?.visitorToken ?? ''}` });

    const toggle = (open: boolean) => {
      opened = open;
      panel.classList.toggle('hidden', !open);
      if (open) void begin();
    };
    bubble.addEventListener('click', () => toggle(!opened));
    close.addEventListener('click', () => toggle(false));

    let begun = false;
    async function begin() {
      if (stored) {
        if (!begun) {
          begun = true;
          await chat();
        }
        markSeen();
        return;
      }
      if (begun) return;
      begun = true;
      if (!cfg.online && cfg.offlineForm) return offlineForm();
      if (cfg.preChatForm) return preChatForm();
      await chat();
    }

    async function createVisitor(fields: Record<string, unknown>): Promise<boolean> {
      const res = await fetch(`${api}/visitors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...fields, pageUrl: location.href, language: navigator.language }),
      }).catch(() => null);
      if (!res || res.status !== 201) {
        const code = res ? ((await res.json().catch(() => ({}))) as { error?: string }).error : undefined;
        showError(errorText(code));
        return false;
      }
      const v = (await res.json()) as Stored;
      stored = { visitorId: v.visitorId, visitorToken: v.visitorToken, offline: Boolean(fields.offline) };
      localStorage.setItem(key, JSON.stringify(stored));
      return true;
    }

    function field(name: string, type: string, label: string, required: boolean) {
      const input = el('input', { name, type, ...(required ? { required: '' } : {}), autocomplete: name });
      return { label: el('label', {}, label, input), input };
    }

    /** A form's consent checkbox (when the widget has a consent text) and its submit button. */
    function consentAndSubmit(form: HTMLFormElement, label: string) {
      const consent = el('input', { type: 'checkbox', name: 'consent', required: '' });
      if (cfg.consentText) form.append(el('label', { class: 'check' }, consent, cfg.consentText));
      const go = el('button', { class: 'btn', type: 'submit' }, label);
      go.style.background = cfg.color;
      form.append(go);
      return consent;
    }

    function preChatForm() {
      const form = el('form', { class: 'form' });
      if (cfg.greeting) form.append(el('div', { class: 'note' }, cfg.greeting));
      const name = field('name', 'text', t.name, true);
      const wantsEmail = cfg.preChatContact !== 'phone';
      const wantsPhone = cfg.preChatContact !== 'email';
      const email = field(
        'email',
        'email',
        cfg.preChatContact === 'either' ? t.emailOrPhone : t.email,
        cfg.preChatContact === 'email',
      );
      const phone = field('phone', 'tel', t.phone, cfg.preChatContact === 'phone');
      form.append(name.label);
      if (wantsEmail) form.append(email.label);
      if (wantsPhone) form.append(phone.label);
      const consent = consentAndSubmit(form, t.start);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        clearError();
        if (cfg.preChatContact === 'either' && !email.input.value && !phone.input.value)
          return showError(t.contactRequired);
        void createVisitor({
          name: name.input.value,
          email: wantsEmail ? email.input.value : '',
          phone: wantsPhone ? phone.input.value : '',
          consent: cfg.consentText ? consent.checked : false,
        }).then((ok) => {
          if (!ok) return;
          form.remove();
          void chat();
        });
      });
      panel.append(form);
    }

    function offlineForm() {
      const form = el('form', { class: 'form' });
      form.append(el('div', { class: 'note' }, t.offlineIntro));
      const name = field('name', 'text', t.name, true);
      const email = field('email', 'email', t.email, true);
      const message = el('textarea', {
        name: 'message',
        required: '',
        maxlength: String(cfg.limits.messageChars),
      });
      message.style.height = '100px';
      form.append(name.label, email.label, el('label', {}, t.message, message));
      const consent = consentAndSubmit(form, t.sendOffline);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        clearError();
        void createVisitor({
          offline: true,
          name: name.input.value,
          email: email.input.value,
          message: message.value,
          consent: cfg.consentText ? consent.checked : false,
        }).then((ok) => {
          if (!ok) return;
          form.remove();
          void chat();
        });
      });
      panel.append(form);
    }

    const typingLine = el('div', { class: 'typing', 'aria-live': 'polite' });

    async function chat() {
      if (cfg.greeting) content.append(el('div', { class: 'note' }, cfg.greeting));
      if (stored?.offline) content.append(el('div', { class: 'note' }, t.offlineSent));
      const composer = el('form', { class: 'send' });
      const text = el('textarea', { placeholder: t.placeholder, 'aria-label': t.placeholder });
      const fileInput = el('input', { type: 'file', class: 'hidden', 'aria-label': t.attach });
      const attach = el(
        'button',
        { class: 'icon', type: 'button', 'aria-label': t.attach, title: t.attach },
        '📎',
      );
      const send = el('button', { class: 'btn', type: 'submit' }, t.send);
      send.style.background = cfg.color;
      composer.append(attach, fileInput, text, send);
      panel.append(typingLine, composer);

      let typingSent = 0;
      let typingStop: ReturnType<typeof setTimeout> | undefined;
      text.addEventListener('input', () => {
        if (!socket) return;
        const now = Date.now();
        if (now - typingSent > 2000) {
          typingSent = now;
          socket.emit('widget:typing', { typing: true });
        }
        clearTimeout(typingStop);
        typingStop = setTimeout(() => {
          typingSent = 0;
          socket?.emit('widget:typing', { typing: false });
        }, 3000);
      });
      text.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && !e.shiftKey) {
          e.preventDefault();
          composer.requestSubmit();
        }
      });
      composer.addEventListener('submit', (e) => {
        e.preventDefault();
        const body = text.value.trim();
        if (!body) return;
        clearError();
        if (body.length > cfg.limits.messageChars) return showError(t.tooLong(cfg.limits.messageChars));
        void sendText(body).then((ok) => {
          if (ok) text.value = '';
        });
      });
      attach.addEventListener('click', () => fileInput.click());
      fileInput.addEventListener('change', () => {
        const file = fileInput.files?.[0];
        fileInput.value = '';
        if (!file) return;
        clearError();
        if (file.size > cfg.limits.fileBytes) return showError(t.fileTooLarge(cfg.limits.fileBytes));
        if (!FILE_TYPES.test(file.type)) return showError(t.fileType);
        void upload(file);
      });

      // The history and the socket come after the composer works: what the visitor types meanwhile is sent.
      if (stored) {
        const res = await fetch(`${api}/messages`, { headers: auth() }).catch(() => null);
        if (res?.status === 401) {
          // The visitor is gone (deleted): start over.
          localStorage.removeItem(key);
          stored = null;
        } else if (res?.ok) for (const m of (await res.json()) as Message[]) show(m);
      }
      if (stored) connect();
    }

    async function sendText(body: string): Promise<boolean> {
      if (!stored && !(await createVisitor({}))) return false;
      if (!socket) connect();
      if (socket?.connected) {
        const answer = await new Promise<{ ok: boolean; message?: Message; error?: string }>((resolve) =>
          socket!
            .timeout(10_000)
            .emit(
              'widget:send',
              { body },
              (err: Error | null, a: { ok: boolean; message?: Message; error?: string }) =>
                resolve(err ? { ok: false } : a),
            ),
        );
        if (!answer.ok) showError(errorText(answer.error));
        else if (answer.message) show(answer.message);
        return answer.ok;
      }
      // Without a socket (not yet connected, or refused by a proxy): the HTTP route.
      const res = await fetch(`${api}/messages`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ body }),
      }).catch(() => null);
      if (res?.status !== 201) {
        showError(
          errorText(res ? ((await res.json().catch(() => ({}))) as { error?: string }).error : undefined),
        );
        return false;
      }
      show((await res.json()) as Message);
      return true;
    }

    async function upload(file: File) {
      if (!stored && !(await createVisitor({}))) return;
      if (!socket) connect();
      const form = new FormData();
      form.append('file', file, file.name);
      const res = await fetch(`${api}/files`, { method: 'POST', headers: auth(), body: form }).catch(
        () => null,
      );
      if (res?.status !== 201) {
        const code = res ? ((await res.json().catch(() => ({}))) as { error?: string }).error : undefined;
        return showError(errorText(res?.status === 413 ? 'ERR_FILE_TOO_LARGE' : code));
      }
      show((await res.json()) as Message);
    }

    function connect() {
      if (socket || !stored) return;
      socket = io(`${base}/widget`, {
        path: '/socket.io',
        transports: ['websocket'],
        query: { widget: publicId },
        auth: { publicId, visitorToken: stored.visitorToken },
      });
      socket.on('widget:message', (m: Message) => {
        show(m);
        if (!m.fromVisitor) {
          typingLine.textContent = '';
          markSeen();
        }
      });
      socket.on('widget:read', (p: { ids: string[]; fromVisitor: boolean }) => {
        if (!p.fromVisitor) return;
        for (const id of p.ids) {
          const meta = shown.get(id)?.querySelector('.meta');
          if (meta) meta.textContent = `${meta.textContent?.replace(/ ✓+$/, '')} ✓✓`;
          shown.get(id)?.setAttribute('data-read', 'true');
        }
      });
      socket.on('widget:typing', (p: { typing: boolean }) => {
        typingLine.textContent = p.typing ? t.agentTyping : '';
      });
      socket.on('connect', () => markSeen());
      socket.on('connect_error', (err: Error & { data?: { code?: string } }) => {
        if (err.data?.code === 'ERR_SESSION_EXPIRED') {
          localStorage.removeItem(key);
          socket?.close();
        }
      });
    }

    function markSeen() {
      if (!opened || !socket?.connected || document.visibilityState === 'hidden') return;
      socket.emit('widget:seen');
    }
    document.addEventListener('visibilitychange', markSeen);

    function show(m: Message) {
      if (shown.has(m.id)) return;
      const div = el('div', {
        class: m.fromVisitor ? 'msg me' : 'msg',
        'data-id': m.id,
        'data-read': String(m.read),
      });
      if (m.fromVisitor) div.style.background = cfg.color;
      if (m.body) div.append(el('div', {}, ...formatted(m.body)));
      if (m.media) div.append(media(m.media));
      const time = new Date(m.createdAt).toLocaleTimeString(navigator.language, {
        hour: '2-digit',
        minute: '2-digit',
      });
      div.append(el('div', { class: 'meta' }, m.fromVisitor ? `${time} ${m.read ? '✓✓' : '✓'}` : time));
      div.dataset.at = String(new Date(m.createdAt).getTime());
      shown.set(m.id, div);
      // In time order: the history may arrive after a message the visitor sent meanwhile.
      const later = [...content.querySelectorAll<HTMLElement>('.msg')].find(
        (x) => Number(x.dataset.at) > Number(div.dataset.at),
      );
      if (later) content.insertBefore(div, later);
      else content.append(div);
      content.scrollTop = content.scrollHeight;
    }

    function media(f: NonNullable<Message['media']>) {
      const link = el('a', { href: '#', 'data-file': f.filename }, f.filename);
      const wrap = el('div', {}, link);
      // Files need the visitor's token: fetched, then shown from a blob URL.
      void fetch(`${base}${f.url}`, { headers: auth() })
        .then((r) => (r.ok ? r.blob() : Promise.reject(new Error(String(r.status)))))
        .then((blob) => {
          const url = URL.createObjectURL(blob);
          blobUrls.push(url);
          link.setAttribute('href', url);
          link.setAttribute('download', f.filename);
          if (f.mimetype.startsWith('image/')) wrap.prepend(el('img', { src: url, alt: f.filename }));
        })
        .catch(() => link.append(` (${t.failed})`));
      return wrap;
    }
    addEventListener('pagehide', () => blobUrls.forEach((u) => URL.revokeObjectURL(u)));
  }
}

const me =
  (document.currentScript as HTMLScriptElement | null) ??
  document.querySelector<HTMLScriptElement>('script[data-widget][src*="widget.js"]');
if (me) {
  if (document.body) start(me);
  else addEventListener('DOMContentLoaded', () => start(me));
}
