import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a piece of work started from: set around every HTTP request (app.ts) and around every job a
 * request scheduled (the job queue stores the id with the job), so their log lines share one `reqId`.
 */
const store = new AsyncLocalStorage<{ reqId: string }>();

export const requestContext = {
  run: <T>(reqId: string, fn: () => T): T => store.run({ reqId }, fn),
  /** The current request's id, if this code runs on behalf of one. */
  reqId: (): string | undefined => store.getStore()?.reqId,
};
