import type { ChannelSink, StateUpdate } from '../channel.js';

/**
 * How a webhook channel (Cloud API, Instagram/Messenger, Telegram) starts: it proves its settings against the
 * provider; a refusal is DISCONNECTED with its reason (the admin must change something), an unreachable or
 * failing provider is TIMEOUT with its reason and the start is tried again later, the delay doubling from
 * `initialMs` up to five minutes and back to `initialMs` once connected. A stop cancels what is pending.
 */
export function startRetries(sink: Pick<ChannelSink, 'state'>, initialMs = 5_000) {
  let timer: NodeJS.Timeout | undefined;
  let delay = initialMs;
  let stopped = false;
  const clear = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return {
    /** A start begins: nothing pending any more. */
    begin() {
      stopped = false;
      clear();
    },
    /** Whether the channel was stopped meanwhile (a start in flight then does nothing more). */
    get stopped() {
      return stopped;
    },
    stop() {
      stopped = true;
      clear();
    },
    /** The channel cannot run: DISCONNECTED with why; nothing is retried until it is started again. */
    disconnected(reason: string, detail?: string) {
      clear();
      const s: StateUpdate = { status: 'DISCONNECTED', data: { reason, ...(detail ? { detail } : {}) } };
      return sink.state(s);
    },
    /** The provider did not answer (or failed): TIMEOUT with `reason`, and `start` again after the delay. */
    async later(reason: string, err: unknown, start: () => Promise<void>) {
      if (stopped) return;
      await sink.state({ status: 'TIMEOUT', data: { reason, detail: (err as Error).message } });
      timer = setTimeout(() => void start().catch(() => undefined), delay);
      timer.unref?.();
      delay = Math.min(delay * 2, 5 * 60_000);
    },
    /** Connected: the next outage starts from the first delay again. */
    connected() {
      delay = initialMs;
    },
  };
}
