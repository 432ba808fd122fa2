import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MediaPayload } from '../../messaging/channel.js';

/** The web client names its microphone recordings `audio-record-{time}.{ext}`: those become voice notes. */
export const RECORDING_PREFIX = 'audio-record-';

export const isRecording = (file: { filename: string; mimetype: string }) =>
  file.mimetype.startsWith('audio/') && file.filename.startsWith(RECORDING_PREFIX);

export const VOICE_MIME = 'audio/ogg; codecs=opus';

export interface VoiceFile extends MediaPayload {
  asVoice: boolean;
}

export interface VoiceNotes {
  /**
   * A recording as WhatsApp wants a voice note: OGG/Opus mono, sent with `asVoice`. Without ffmpeg, or
   * when the conversion fails, the original file goes as a plain audio attachment.
   */
  prepare(file: MediaPayload): Promise<VoiceFile>;
}

type Log = { warn(obj: unknown, msg?: string): void; info?(obj: unknown, msg?: string): void };

class FfmpegMissing extends Error {}

/** Runs ffmpeg (no shell) with a time limit; rejects with FfmpegMissing when it is not installed. */
function runFfmpeg(path: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const child = spawn(path, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      windowsHide: true,
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' || err.code === 'EACCES' ? new FfmpegMissing(err.message) : err),
    );
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            signal
              ? `ffmpeg stopped by ${signal} (time limit ${timeoutMs} ms)`
              : `ffmpeg exited with ${code}: ${stderr.trim().slice(-500)}`,
          ),
        );
    });
  });
}

const oggName = (filename: string) => `${filename.replace(/\.[^./\\]*$/, '') || 'audio-record'}.ogg`;

/**
 * Converts recordings with Debian's ffmpeg (found on PATH, or `ffmpegPath`; `false` turns it off). A
 * missing ffmpeg is noticed once, logged once, and every later recording goes out unconverted.
 */
export function voiceNotes(
  opts: { ffmpegPath?: string | false; timeoutMs?: number; log?: Log } = {},
): VoiceNotes {
  const path = opts.ffmpegPath === undefined ? 'ffmpeg' : opts.ffmpegPath;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  let missing = path === false || path === '';
  let warnedMissing = false;
  const missingReason = () =>
    path === false || path === ''
      ? 'ffmpeg is turned off (FFMPEG_PATH)'
      : `ffmpeg was not found (${path}); install it (apt-get install -y ffmpeg) and restart`;
  const plain = (file: MediaPayload): VoiceFile => ({ ...file, asVoice: false });
  const noFfmpeg = (file: MediaPayload) => {
    if (!warnedMissing) opts.log?.warn({}, `voice notes go as plain audio files: ${missingReason()}`);
    warnedMissing = true;
    return plain(file);
  };

  return {
    async prepare(file) {
      if (missing) return noFfmpeg(file);
      const dir = await mkdtemp(join(tmpdir(), 'recado-voice-'));
      try {
        const input = join(dir, 'input');
        const output = join(dir, 'voice.ogg');
        await writeFile(input, file.data);
        // The input goes by file, not by pipe: MP4/M4A recordings keep their index at the end.
        await runFfmpeg(
          path as string,
          [
            '-hide_banner',
            '-loglevel',
            'error',
            '-nostdin',
            '-y',
            '-i',
            input,
            '-vn',
            '-map_metadata',
            '-1',
            '-ac',
            '1',
            '-ar',
            '48000',
            '-c:a',
            'libopus',
            '-b:a',
            '32k',
            '-application',
            'voip',
            '-f',
            'ogg',
            output,
          ],
          timeoutMs,
        );
        const data = await readFile(output);
        if (!data.length) throw new Error('ffmpeg wrote nothing');
        return { mimetype: VOICE_MIME, filename: oggName(file.filename), data, asVoice: true };
      } catch (err) {
        if (err instanceof FfmpegMissing) {
          missing = true;
          return noFfmpeg(file);
        }
        opts.log?.warn(
          { err: err instanceof Error ? err.message : String(err), filename: file.filename },
          'voice note conversion failed: sent as a plain audio file',
        );
        return plain(file);
      } finally {
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      }
    },
  };
}
