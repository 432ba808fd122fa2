import { afterEach, describe, expect, it, vi } from 'vitest';
import { MACRO_MAX_TICKETS } from '@recado/contracts';
import { overMacroLimit, ticketSelection } from './ticket-selection.js';

afterEach(() => ticketSelection.setActive(false));

describe('ticket list selection (#32.1)', () => {
  it('toggles, adds the visible ones once, keeps the failed ones and empties when left', () => {
    const seen = vi.fn();
    const off = ticketSelection.subscribe(seen);
    ticketSelection.setActive(true);
    expect(ticketSelection.isActive()).toBe(true);
    ticketSelection.toggle(1);
    ticketSelection.toggle(2);
    ticketSelection.toggle(1);
    expect(ticketSelection.ids()).toEqual([2]);
    expect(ticketSelection.has(1)).toBe(false);
    ticketSelection.add([2, 3, 4]);
    expect(ticketSelection.ids()).toEqual([2, 3, 4]);
    expect(ticketSelection.size()).toBe(3);
    ticketSelection.replace([4]);
    expect(ticketSelection.ids()).toEqual([4]);
    ticketSelection.setActive(false);
    expect(ticketSelection.isActive()).toBe(false);
    expect(ticketSelection.size()).toBe(0);
    const calls = seen.mock.calls.length;
    // Nothing changes: nobody re-renders.
    ticketSelection.setActive(false);
    ticketSelection.clear();
    expect(seen.mock.calls.length).toBe(calls);
    off();
    ticketSelection.setActive(true);
    expect(seen.mock.calls.length).toBe(calls);
  });

  it('a snapshot changes only for the row whose answer changes', () => {
    ticketSelection.setActive(true);
    ticketSelection.toggle(7);
    const before = [ticketSelection.has(7), ticketSelection.has(8)];
    ticketSelection.toggle(8);
    expect(before).toEqual([true, false]);
    expect([ticketSelection.has(7), ticketSelection.has(8)]).toEqual([true, true]);
  });
});

describe('the macro limit (#32.1)', () => {
  it('a selection over the server limit is told so; the limit itself runs', () => {
    expect(MACRO_MAX_TICKETS).toBe(100);
    expect(overMacroLimit(100)).toBe(false);
    expect(overMacroLimit(101)).toBe(true);
  });
});
