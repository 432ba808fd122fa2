import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { messages, tickets } from '../../db/schema/index.js';
import { testApp, type TestApp, waitFor } from '../../../test/helpers.js';
import { isRecording, voiceNotes, VOICE_MIME } from './voice-note.js';

const HAS_FFMPEG = spawnSync('ffmpeg', ['-version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
const NO_FFMPEG = HAS_FFMPEG ? '' : ' [SKIPPED: ffmpeg is not on PATH; apt-get install -y ffmpeg]';
if (!HAS_FFMPEG)
  console.warn('messages.test: ffmpeg is not on PATH, the voice-note conversion tests are skipped');

/** One second of a 440 Hz tone as 16-bit mono PCM WAV, built by hand (no ffmpeg needed). */
function wav(seconds = 1, rate = 16000): Buffer {
  const samples = Math.round(seconds * rate);
  const b = Buffer.alloc(44 + samples * 2);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples * 2, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++)
    b.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12000), 44 + i * 2);
  return b;
}

/** A stereo WebM/Opus recording like the browser's, made by ffmpeg from the WAV. */
function webm(): Buffer {
  const r = spawnSync(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'wav',
      '-i',
      'pipe:0',
      '-ac',
      '2',
      '-c:a',
      'libopus',
      '-f',
      'webm',
      'pipe:1',
    ],
    { input: wav(2, 48000), timeout: 20_000, maxBuffer: 10 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`ffmpeg could not make the webm: ${r.stderr?.toString()}`);
  return r.stdout;
}

/** Channels and sample count of an OGG/Opus file, read from its OpusHead packet. */
function opusHead(data: Buffer) {
  expect(data.subarray(0, 4).toString('latin1')).toBe('OggS');
  const at = data.indexOf('OpusHead', 0, 'latin1');
  expect(at).toBeGreaterThan(0);
  return { channels: data[at + 9] };
}

const silentLog = () => {
  const warnings: string[] = [];
  return { warnings, log: { warn: (_o: unknown, msg?: string) => void warnings.push(msg ?? '') } };
};

describe('voice notes (ffmpeg)', () => {
  test('only audio named audio-record-* is a recording', () => {
    expect(isRecording({ filename: 'audio-record-1712.webm', mimetype: 'audio/webm' })).toBe(true);
    expect(isRecording({ filename: 'song.mp3', mimetype: 'audio/mpeg' })).toBe(false);
    expect(isRecording({ filename: 'audio-record-1.png', mimetype: 'image/png' })).toBe(false);
  });

  test.skipIf(!HAS_FFMPEG)(
    `a WAV and a stereo WebM become OGG/Opus mono voice notes${NO_FFMPEG}`,
    async () => {
      const { log, warnings } = silentLog();
      const voice = voiceNotes({ log });
      const fromWav = await voice.prepare({
        mimetype: 'audio/wav',
        filename: 'audio-record-1.wav',
        data: wav(),
      });
      expect(fromWav).toMatchObject({ mimetype: VOICE_MIME, filename: 'audio-record-1.ogg', asVoice: true });
      expect(opusHead(fromWav.data).channels).toBe(1);
      const fromWebm = await voice.prepare({
        mimetype: 'audio/webm',
        filename: 'audio-record-2.webm',
        data: webm(),
      });
      expect(fromWebm).toMatchObject({ mimetype: VOICE_MIME, filename: 'audio-record-2.ogg', asVoice: true });
      expect(opusHead(fromWebm.data).channels).toBe(1);
      expect(warnings).toEqual([]);
    },
  );

  test('without ffmpeg (turned off, or not found) the original goes as plain audio, logged once', async () => {
    for (const ffmpegPath of [false, '/nonexistent/bin/ffmpeg'] as const) {
      const { log, warnings } = silentLog();
      const voice = voiceNotes({ ffmpegPath, log });
      const file = {
        mimetype: 'audio/webm',
        filename: 'audio-record-3.webm',
        data: Buffer.from('not audio'),
      };
      for (let i = 0; i < 3; i++) expect(await voice.prepare(file)).toEqual({ ...file, asVoice: false });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/plain audio/);
    }
  });

  test.skipIf(!HAS_FFMPEG)(`a recording ffmpeg cannot read goes as plain audio${NO_FFMPEG}`, async () => {
    const { log, warnings } = silentLog();
    const file = { mimetype: 'audio/webm', filename: 'audio-record-4.webm', data: Buffer.from('garbage') };
    expect(await voiceNotes({ log }).prepare(file)).toEqual({ ...file, asVoice: false });
    expect(warnings[0]).toMatch(/conversion failed/);
  });
});

/** A company, a simulator connection and an accepted ticket; records what reaches the channel. */
async function openTicket(t: TestApp, name: string, number: string) {
  const c = await t.company(name);
  const w = await (await t.as(c.admin).post('/whatsapp', { name: 'Sim', channel: 'simulator' })).json();
  await t.as(c.admin).post(`/simulator/${w.id}/inbound`, { from: number, name: 'Cliente', body: 'Oi' });
  const ticket = await waitFor(
    async () => (await t.database.db.select().from(tickets).where(eq(tickets.companyId, c.id)))[0],
  );
  await t.as(c.admin).put(`/tickets/${ticket.id}`, { status: 'open' });
  const channel = await waitFor(async () => t.app.sessions.get(w.id));
  const sentMedia: { mimetype: string; filename: string; asVoice?: boolean; data: Buffer }[] = [];
  const original = channel.sendMedia.bind(channel);
  channel.sendMedia = (to, media, opts) => {
    sentMedia.push(media);
    return original(to, media, opts);
  };
  return { ...c, whatsappId: w.id as number, ticketId: ticket.id, number, sentMedia };
}

async function upload(
  t: TestApp,
  token: string,
  ticketId: number,
  filename: string,
  type: string,
  data: Buffer,
) {
  const form = new FormData();
  form.append('body', '');
  form.append('medias', new Blob([data], { type }), filename);
  return fetch(`${t.url}/api/messages/${ticketId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
}

const t = await testApp();
const tOff = await testApp({ env: { FFMPEG_PATH: 'off' } });

describe('POST /messages/:ticketId with a recording', () => {
  test.skipIf(!HAS_FFMPEG)(
    `a recorded WebM reaches the customer as an OGG/Opus voice note${NO_FFMPEG}`,
    async () => {
      const s = await openTicket(t, 'Voice', '5511966660001');
      const res = await upload(t, s.admin.token, s.ticketId, 'audio-record-99.webm', 'audio/webm', webm());
      expect(res.status).toBe(200);
      const msg = await res.json();
      expect(msg).toMatchObject({ fromMe: true, mediaType: 'audio', mediaName: 'audio-record-99.ogg' });
      expect(s.sentMedia).toHaveLength(1);
      expect(s.sentMedia[0]).toMatchObject({ mimetype: VOICE_MIME, asVoice: true });
      expect(opusHead(s.sentMedia[0]!.data).channels).toBe(1);
      // The attendant's copy is the voice note too, served as audio/ogg.
      const media = await t.as(s.admin).get(`/messages/${msg.id}/media`);
      expect(media.headers.get('content-type')).toMatch(/^audio\/ogg/);
      expect(
        Buffer.from(await media.arrayBuffer())
          .subarray(0, 4)
          .toString('latin1'),
      ).toBe('OggS');
      // And the customer's phone has an audio message.
      const phone = await waitFor(async () => {
        const conv = await (
          await t.as(s.admin).get(`/simulator/${s.whatsappId}/conversations/${s.number}`)
        ).json();
        return conv.find((m: { fromMe: boolean; mediaType: string }) => m.fromMe && m.mediaType === 'audio');
      });
      expect(phone.mediaUrl).toBeTruthy();
    },
  );

  test('an audio file that is not a recording is sent as it is, not as a voice note', async () => {
    const s = await openTicket(t, 'Song', '5511966660002');
    const res = await upload(t, s.admin.token, s.ticketId, 'song.wav', 'audio/wav', wav());
    expect(res.status).toBe(200);
    expect((await res.json()).mediaName).toBe('song.wav');
    expect(s.sentMedia[0]).toMatchObject({ mimetype: 'audio/wav', filename: 'song.wav', asVoice: false });
  });
});

describe('POST /messages/:ticketId with ffmpeg turned off (FFMPEG_PATH=off)', () => {
  test('the recording goes unconverted, as a plain audio attachment', async () => {
    const t = tOff;
    const s = await openTicket(t, 'NoFfmpeg', '5511966660003');
    const data = wav();
    const res = await upload(t, s.admin.token, s.ticketId, 'audio-record-7.webm', 'audio/webm', data);
    expect(res.status).toBe(200);
    const msg = await res.json();
    expect(msg).toMatchObject({ mediaType: 'audio', mediaName: 'audio-record-7.webm' });
    expect(s.sentMedia[0]).toMatchObject({ mimetype: 'audio/webm', asVoice: false });
    expect(s.sentMedia[0]!.data.equals(data)).toBe(true);
    const [row] = await t.database.db.select().from(messages).where(eq(messages.id, msg.id));
    expect(row!.data).toBeNull();
  });
});

describe('editing a sent message (PUT /messages/:id)', () => {
  type PhoneMessage = {
    id: string;
    fromMe: boolean;
    body: string;
    ack: number;
    isEdited: boolean;
    quoted: { id: string; fromMe: boolean; body: string } | null;
  };
  const phone = async (s: Awaited<ReturnType<typeof openTicket>>) =>
    (await (
      await t.as(s.admin).get(`/simulator/${s.whatsappId}/conversations/${s.number}`)
    ).json()) as PhoneMessage[];

  test('changes only the text after the signature, keeps the ticks, and the phone shows quote and "edited"', async () => {
    const s = await openTicket(t, 'EditSign', '5511966660010');
    const [customer] = await t.database.db.select().from(messages).where(eq(messages.ticketId, s.ticketId));
    const sent = await t
      .as(s.admin)
      .post(`/messages/${s.ticketId}`, { body: '*Ana Admin*:\nBom dia', quotedMsg: { id: customer!.id } });
    expect(sent.status).toBe(200);
    const { id } = (await sent.json()) as { id: number };
    // Delivered to the phone: ✓✓.
    await waitFor(async () => {
      const [row] = await t.database.db.select().from(messages).where(eq(messages.id, id));
      return row!.ack >= 2;
    });

    // The edit dialog sends the text alone; the signature stays in front of it.
    const res = await t.as(s.admin).put(`/messages/${id}`, { body: 'Boa tarde' });
    expect(res.status).toBe(200);
    const edited = await res.json();
    expect(edited).toMatchObject({ body: '*Ana Admin*:\nBoa tarde', isEdited: true });
    expect(edited.ack).toBeGreaterThanOrEqual(2);
    // The ticket lists preview the edited text.
    const [ticket] = await t.database.db.select().from(tickets).where(eq(tickets.id, s.ticketId));
    expect(ticket!.lastMessage).toBe('*Ana Admin*:\nBoa tarde');
    // Sent again with its signature (an older client), it is not doubled.
    const again = await (
      await t.as(s.admin).put(`/messages/${id}`, { body: '*Ana Admin*:\nBoa noite' })
    ).json();
    expect(again.body).toBe('*Ana Admin*:\nBoa noite');

    // The customer's phone: the reply quotes the customer's message and shows it was edited.
    const mine = (await phone(s)).find((m) => m.fromMe)!;
    expect(mine).toMatchObject({ body: '*Ana Admin*:\nBoa noite', isEdited: true });
    expect(mine.ack).toBeGreaterThanOrEqual(2);
    expect(mine.quoted).toMatchObject({ fromMe: false, body: 'Oi' });

    // Another company's admin can neither edit it nor read that phone.
    const other = await t.company('EditOther');
    expect((await t.as(other.admin).put(`/messages/${id}`, { body: 'x' })).status).toBe(404);
    expect(
      (await t.as(other.admin).get(`/simulator/${s.whatsappId}/conversations/${s.number}`)).status,
    ).toBeGreaterThanOrEqual(400);
  });

  test('a message sent without a signature is edited whole', async () => {
    const s = await openTicket(t, 'EditPlain', '5511966660011');
    const { id } = (await (await t.as(s.admin).post(`/messages/${s.ticketId}`, { body: 'Olá' })).json()) as {
      id: number;
    };
    const edited = await (await t.as(s.admin).put(`/messages/${id}`, { body: 'Olá de novo' })).json();
    expect(edited.body).toBe('Olá de novo');
    expect((await phone(s)).find((m) => m.fromMe)).toMatchObject({ body: 'Olá de novo', isEdited: true });
  });
});
