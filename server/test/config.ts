import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';

/**
 * The configuration of an app that never leaves a test or a bench: NODE_ENV test, silent, fixed secrets, a data
 * folder of its own (made under the system's temporary folder with `prefix`). `env` adds to or overrides it.
 */
export function testConfig(env: Record<string, string> = {}, prefix = 'recado-test-') {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    APP_SECRET: 'a'.repeat(40),
    JWT_SECRET: 'b'.repeat(40),
    ...env,
  });
  return { dataDir, config };
}
