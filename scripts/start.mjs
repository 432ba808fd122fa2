// npm start: build the web client when its sources changed, then run the server (API, sockets, jobs, web).
// NODE_ENV=production npm start: run the compiled build (`npm run build`: server/dist, web/dist) with plain
// node, no TypeScript loader and nothing built here.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = join(root, 'web');
const built = join(web, 'dist', 'index.html');

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
    const p = join(dir, e.name);
    return Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }, 0);

// WEB_DIST names a build of the operator's own: it is served as it is, never rebuilt here.
const ownBuild = Boolean(process.env.WEB_DIST);
const production = process.env.NODE_ENV === 'production';
const compiled = join(root, 'server', 'dist', 'main.js');
if (production && (!existsSync(compiled) || (!ownBuild && !existsSync(built)))) {
  console.error('NODE_ENV=production runs the compiled build: run `npm run build` first.');
  process.exit(1);
}
const stale =
  !production &&
  !ownBuild &&
  (!existsSync(built) ||
    Math.max(
      newest(join(web, 'src')),
      newest(join(root, 'contracts', 'src')),
      statSync(join(web, 'index.html')).mtimeMs,
    ) > statSync(built).mtimeMs);
if (stale || process.argv.includes('--build')) {
  console.log('Building the web client...');
  const r = spawnSync('npm', ['run', 'build', '-w', 'web'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const args = production ? [compiled] : ['--import', 'tsx', join(root, 'server', 'src', 'main.ts')];
const server = spawn(process.execPath, args, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, WEB_DIST: process.env.WEB_DIST ?? join(web, 'dist') },
});
// Service managers and containers stop us with SIGTERM, a console with SIGINT: the server gets the same
// signal, shuts down (sockets, jobs, database) and frees the port; we leave with its exit status.
// (package.json starts this file with `exec`, so npm's forwarded signal reaches us and not a shell.)
const SIGNALS = ['SIGINT', 'SIGTERM'];
const forward = (sig) => server.kill(sig);
for (const sig of SIGNALS) process.on(sig, forward);
server.on('exit', (code, signal) => {
  for (const sig of SIGNALS) process.off(sig, forward);
  // Killed by a signal: die of the same one, so the caller sees it (exit status 128 + n).
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
