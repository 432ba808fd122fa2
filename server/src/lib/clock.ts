/**
 * Business time. Every time decision of the timers, jobs and rating waits reads `clock.now()`, so tests
 * move a manual clock instead of waiting. Infrastructure leases of other modules keep the database's now().
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to (tests). */
export function manualClock(start: Date): Clock & { set(d: Date): void; advance(ms: number): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (d: Date) => {
      current = d.getTime();
    },
    advance: (ms: number) => {
      current += ms;
    },
  };
}
