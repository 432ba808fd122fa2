/**
 * Per-key values loaded once and kept `ttlMs` of real time (performance.now: business clocks in tests do not
 * age it). Callers share the pending load; a failed load is not kept (the next call loads again). `forget`
 * drops a key at once (this process changed what the value is made from); other processes' changes are seen
 * within the TTL.
 */
export function ttlCache<K, V>(ttlMs: number, load: (key: K) => Promise<V>) {
  const entries = new Map<K, { until: number; value: Promise<V> }>();
  return {
    get(key: K): Promise<V> {
      const now = performance.now();
      const hit = entries.get(key);
      if (hit && hit.until > now) return hit.value;
      const entry = { until: now + ttlMs, value: load(key) };
      entries.set(key, entry);
      entry.value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return entry.value;
    },
    forget(key: K): void {
      entries.delete(key);
    },
  };
}
