import { useEffect, useState } from 'react';

/** The value, once it has stopped changing for `delay` ms (search boxes: 500 ms, docs/product.md#constants). */
export function useDebouncedValue<T>(value: T, delay = 500): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setDebounced(value), delay);
    return () => window.clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}
