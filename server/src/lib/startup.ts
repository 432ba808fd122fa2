import { DEMO } from '../db/seed.js';

/** How the server logs: readable lines for a person at a console, or one JSON object a line for machines. */
export type LogStyle = 'json' | 'pretty';

/** pino-pretty (development only): time of day, level and message; the request id and pid are noise there. */
export const PRETTY_LOG = {
  target: 'pino-pretty',
  options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,reqId', singleLine: true },
};

const ALL_INTERFACES = new Set(['0.0.0.0', '::', '']);

/** The listening address as a person reads it, e.g. `0.0.0.0:8080 (every network interface)`. */
export function listenAddress(host: string, port: number): { address: string; allInterfaces: boolean } {
  const allInterfaces = ALL_INTERFACES.has(host);
  return { address: `${host.includes(':') ? `[${host}]` : host}:${port}`, allInterfaces };
}

export interface ReadyInfo {
  url: string;
  host: string;
  port: number;
  database: string;
  /** The demo company is seeded (SEED_DEMO): its logins are shown. */
  demo: boolean;
  /** Milliseconds from the process's start to listening (able to answer). */
  startupMs?: number;
}

/** The start-up summary, as lines for the console (the demo's published logins included). */
export function readyLines(info: ReadyInfo): string[] {
  const { address, allInterfaces } = listenAddress(info.host, info.port);
  return [
    `Recado is ready: ${info.url}`,
    allInterfaces
      ? `Listening on ${address}: every network interface (HOST=127.0.0.1 keeps it to this machine)`
      : `Listening on ${address}`,
    `Database: ${info.database}`,
    ...(info.startupMs !== undefined ? [`Started in ${info.startupMs} ms`] : []),
    ...(info.demo
      ? [
          'Demo logins:',
          `  admin      ${DEMO.admin.email} / ${DEMO.admin.password}`,
          `  attendant  ${DEMO.attendant.email} / ${DEMO.attendant.password}`,
        ]
      : []),
  ];
}

/** The same summary as structured fields for JSON logs (no passwords: the demo's are in the README). */
export function readyFields(info: ReadyInfo) {
  const { address, allInterfaces } = listenAddress(info.host, info.port);
  return {
    url: info.url,
    listen: address,
    allInterfaces,
    database: info.database,
    ...(info.startupMs !== undefined ? { startupMs: info.startupMs } : {}),
    ...(info.demo ? { demoLogins: [DEMO.admin.email, DEMO.attendant.email] } : {}),
  };
}
