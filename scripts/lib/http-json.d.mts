// Types of scripts/lib/http-json.mjs.
import type { Agent } from 'node:http';

export function httpJson(
  url: string,
  opts?: {
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    agent?: Agent | false;
    localAddress?: string;
    timeoutMs?: number;
  },
): Promise<{ status: number; json: unknown }>;
