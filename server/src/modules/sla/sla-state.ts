import { SLA_AT_RISK_SHARE, SLA_KINDS, type SlaKind } from '@recado/contracts';
import type { SlaClockState, SlaState } from '../../db/schema/index.js';

/**
 * The SLA clocks of one ticket as a pure state machine (docs/metrics.md "SLA"). The listener feeds it what
 * happened (the ticket's state now, a customer's message, an agent's reply) and stores the result; due times
 * are derived from it with the policy's targets and the business-hours arithmetic.
 *
 * - first_response runs from the SLA's start (the ticket's first moment in a queue) to the first human reply.
 * - next_response starts at a customer message that follows an agent reply (first response met), and runs
 *   to the next agent reply: it runs only while the customer waits.
 * - resolution runs from the start to the close; a reopen resumes it with the time it had used.
 * - A snooze pauses every running clock; waking resumes them. Out-of-hours time is not counted by the
 *   business-hours arithmetic itself (no state change).
 */

/** Business (or calendar) ms between two instants, as the ticket's policy counts them. */
export type Measure = (from: Date, to: Date) => number;

/** What the machine reports when a clock ends: met (a reply or the close) or stopped unmet (closed first). */
export interface ClockEnd {
  kind: SlaKind;
  how: 'met' | 'stopped';
  /** The clock as it was (to compute its due time before it ended). */
  before: SlaClockState;
}

const idle = (): SlaClockState => ({
  state: 'idle',
  since: null,
  usedMs: 0,
  startedAt: null,
  breached: false,
});
const running = (now: Date, usedMs = 0, startedAt = now.toISOString()): SlaClockState => ({
  state: 'running',
  since: now.toISOString(),
  usedMs,
  startedAt,
  breached: false,
});

const active = (c: SlaClockState) => c.state === 'running' || c.state === 'paused';

/** The ticket's state the machine follows. */
export interface TicketFacts {
  queueId: number | null;
  status: string;
  snoozed: boolean;
  /** An agent already replied (tickets.first_response_at): a ticket entering a queue after that owes none. */
  replied: boolean;
}

function stopClock(
  c: SlaClockState,
  now: Date,
  measure: Measure,
  state: SlaClockState['state'],
): SlaClockState {
  const used = c.state === 'running' && c.since ? c.usedMs + measure(new Date(c.since), now) : c.usedMs;
  return { ...c, state, since: null, usedMs: used };
}

function pause(s: SlaState, now: Date, measure: Measure): SlaState {
  const clocks = { ...s.clocks };
  for (const k of SLA_KINDS)
    if (clocks[k].state === 'running') clocks[k] = stopClock(clocks[k], now, measure, 'paused');
  return { ...s, clocks, snoozed: true };
}

function resume(s: SlaState, now: Date): SlaState {
  const clocks = { ...s.clocks };
  for (const k of SLA_KINDS)
    if (clocks[k].state === 'paused')
      clocks[k] = { ...clocks[k], state: 'running', since: now.toISOString() };
  return { ...s, clocks, snoozed: false };
}

/**
 * Brings the machine in line with the ticket: starts it when the ticket first has a queue, ends the clocks at
 * a close, resumes resolution at a reopen, pauses and resumes for a snooze. Returns the clocks that ended.
 */
export function syncState(
  s: SlaState | null,
  facts: TicketFacts,
  now: Date,
  measure: Measure,
): { state: SlaState | null; ended: ClockEnd[] } {
  const ended: ClockEnd[] = [];
  const closed = facts.status === 'closed';
  if (!s) {
    if (facts.queueId === null || closed) return { state: null, ended };
    s = {
      v: 1,
      startedAt: now.toISOString(),
      policyId: null,
      snoozed: false,
      closed: false,
      clocks: {
        first_response: facts.replied ? { ...idle(), state: 'stopped' } : running(now),
        next_response: idle(),
        resolution: running(now),
      },
    };
  }
  if (closed && !s.closed) {
    const clocks = { ...s.clocks };
    for (const k of SLA_KINDS) {
      if (!active(clocks[k])) continue;
      const how = k === 'resolution' ? 'met' : 'stopped';
      ended.push({ kind: k, how, before: clocks[k] });
      clocks[k] = stopClock(clocks[k], now, measure, how);
    }
    s = { ...s, clocks, closed: true };
  } else if (!closed && s.closed) {
    const r = s.clocks.resolution;
    s = {
      ...s,
      closed: false,
      clocks: {
        ...s.clocks,
        resolution: { ...running(now, r.usedMs, r.startedAt ?? now.toISOString()), breached: r.breached },
      },
    };
    if (s.snoozed) s = pause({ ...s, snoozed: false }, now, measure);
  }
  if (!s.closed) {
    if (facts.snoozed && !s.snoozed) s = pause(s, now, measure);
    else if (!facts.snoozed && s.snoozed) s = resume(s, now);
  } else s = { ...s, snoozed: facts.snoozed };
  return { state: s, ended };
}

/** A customer's message: starts a next-response cycle when an agent has answered and none is running. */
export function onCustomerMessage(s: SlaState | null, now: Date): SlaState | null {
  if (!s || s.closed) return s;
  if (active(s.clocks.first_response) || s.clocks.first_response.state === 'idle') return s;
  if (active(s.clocks.next_response)) return s;
  const next = running(now);
  return {
    ...s,
    clocks: { ...s.clocks, next_response: s.snoozed ? { ...next, state: 'paused', since: null } : next },
  };
}

/** A person's reply: meets the first response and the running next response. */
export function onAgentReply(
  s: SlaState | null,
  now: Date,
  measure: Measure,
): { state: SlaState | null; ended: ClockEnd[] } {
  if (!s || s.closed) return { state: s, ended: [] };
  const ended: ClockEnd[] = [];
  const clocks = { ...s.clocks };
  for (const k of ['first_response', 'next_response'] as const) {
    if (!active(clocks[k])) continue;
    ended.push({ kind: k, how: 'met', before: clocks[k] });
    clocks[k] = stopClock(clocks[k], now, measure, 'met');
  }
  return { state: { ...s, clocks }, ended };
}

export interface Targets {
  first_response: number | null;
  next_response: number | null;
  resolution: number | null;
}

/** Adds business time to an instant as the ticket's policy counts it (null: never). */
export type AddTime = (from: Date, ms: number) => Date | null;

/** A running clock's due time: its target minus what it used, added from `since`. */
export function dueOf(c: SlaClockState, targetMinutes: number | null, add: AddTime): Date | null {
  if (targetMinutes === null || c.state !== 'running' || !c.since) return null;
  return add(new Date(c.since), targetMinutes * 60_000 - c.usedMs);
}

/** The due times of the running clocks and the moment the nearest turns amber (docs/metrics.md). */
export function duesOf(
  s: SlaState | null,
  targets: Targets | null,
  add: AddTime,
): { dues: Record<SlaKind, Date | null>; atRiskAt: Date | null } {
  const dues: Record<SlaKind, Date | null> = { first_response: null, next_response: null, resolution: null };
  if (!s || !targets) return { dues, atRiskAt: null };
  let nearest: { due: Date; risk: Date | null } | null = null;
  for (const k of SLA_KINDS) {
    const due = dueOf(s.clocks[k], targets[k], add);
    dues[k] = due;
    if (!due || (nearest && nearest.due <= due)) continue;
    const c = s.clocks[k];
    const amberAfter = targets[k]! * 60_000 * (1 - SLA_AT_RISK_SHARE) - c.usedMs;
    nearest = { due, risk: add(new Date(c.since!), amberAfter) };
  }
  return { dues, atRiskAt: nearest?.risk ?? null };
}
