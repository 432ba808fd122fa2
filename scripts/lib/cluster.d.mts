// Types of scripts/lib/cluster.mjs for the TypeScript scripts and benchmarks that use it.
export type App = { pid: number; port: number; log: string };
export const root: string;
export const nginxBin: string;
export const mainJs: string;
export function sleep(ms: number): Promise<void>;
export function alive(pid: number): boolean;
export function ensureDatabase(url: string): Promise<void>;
export function dropDatabase(url: string): Promise<void>;
export function waitReady(url: string, ms?: number): Promise<void>;
export function nginxConf(o: { dir: string; port: number; appPorts: number[] }): string;
export function clusterSecrets(dir: string): { app: string; jwt: string };
export function startApp(o: {
  dir: string;
  index: number;
  port: number;
  publicPort: number;
  dbUrl: string;
  env?: Record<string, string | undefined>;
  nodeArgs?: string[];
}): App;
export function startNginx(o: { dir: string; port: number; appPorts: number[] }): void;
export function stopNginx(dir: string): void;
export function stopApps(apps: { pid: number }[], ms?: number): Promise<void>;
export function startCluster(o: {
  dir: string;
  port: number;
  dbUrl: string;
  count?: number;
  env?: Record<string, string | undefined>;
  readyMs?: number;
}): Promise<{ url: string; apps: App[]; stop(): Promise<void> }>;
