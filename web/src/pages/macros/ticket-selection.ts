import { MACRO_MAX_TICKETS } from '@recado/contracts';
import { useSyncExternalStore } from 'react';

/**
 * #32.1 The ticket list's multi-selection (run a macro on several tickets): a Set outside React, so toggling
 * one row re-renders that row and the selection bar only (each row reads its own boolean), never the list.
 */
type Listener = () => void;

let active = false;
let ids = new Set<number>();
const listeners = new Set<Listener>();
const emit = () => listeners.forEach((l) => l());

export const ticketSelection = {
  subscribe(listener: Listener) {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
  isActive: () => active,
  has: (id: number) => ids.has(id),
  size: () => ids.size,
  /** The selected ids (a copy), in selection order. */
  ids: () => [...ids],
  setActive(on: boolean) {
    if (active === on && (on || ids.size === 0)) return;
    active = on;
    if (!on) ids = new Set();
    emit();
  },
  toggle(id: number) {
    ids = new Set(ids);
    if (!ids.delete(id)) ids.add(id);
    emit();
  },
  add(list: number[]) {
    ids = new Set([...ids, ...list]);
    emit();
  },
  /** Keeps only these ids selected (e.g. the tickets a macro failed on). */
  replace(list: number[]) {
    ids = new Set(list);
    emit();
  },
  clear() {
    if (!ids.size) return;
    ids = new Set();
    emit();
  },
};

/** Whether the list is in selection mode. */
export const useSelecting = () => useSyncExternalStore(ticketSelection.subscribe, ticketSelection.isActive);
/** Whether this ticket is selected: only the rows whose answer changes re-render. */
export const useTicketSelected = (id: number) =>
  useSyncExternalStore(ticketSelection.subscribe, () => ticketSelection.has(id));
/** How many tickets are selected. */
export const useSelectedCount = () => useSyncExternalStore(ticketSelection.subscribe, ticketSelection.size);

/** #32.1 A macro runs on at most MACRO_MAX_TICKETS tickets at a time: a larger selection is told so, not sent. */
export const overMacroLimit = (count: number) => count > MACRO_MAX_TICKETS;
