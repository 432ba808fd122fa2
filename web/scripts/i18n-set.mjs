// Sets one top-level namespace in pt.json, en.json and es.json at once, leaving the others untouched:
//   node web/scripts/i18n-set.mjs <namespace> <file.json>   (file: { "pt": {...}, "en": {...}, "es": {...} })
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [ns, file] = process.argv.slice(2);
if (!ns || !file) {
  console.error('usage: node web/scripts/i18n-set.mjs <namespace> <file.json>');
  process.exit(2);
}
const input = JSON.parse(readFileSync(file, 'utf8'));
const flat = (o, p = '') =>
  Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? flat(v, `${p}${k}.`) : [`${p}${k}`]));
const ptKeys = flat(input.pt ?? {})
  .sort()
  .join('\n');
for (const lang of ['en', 'es'])
  if (
    flat(input[lang] ?? {})
      .sort()
      .join('\n') !== ptKeys
  ) {
    console.error(`${lang} does not have exactly the keys of pt in ${ns}`);
    process.exit(1);
  }
for (const lang of ['pt', 'en', 'es']) {
  const path = fileURLToPath(new URL(`../src/i18n/${lang}.json`, import.meta.url));
  const data = JSON.parse(readFileSync(path, 'utf8'));
  data[ns] = input[lang];
  writeFileSync(`${path}.tmp`, JSON.stringify(data, null, 2) + '\n');
  renameSync(`${path}.tmp`, path);
}
console.log(`i18n: ${ns} set in pt, en, es`);
