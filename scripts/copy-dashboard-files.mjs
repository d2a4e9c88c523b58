// Copies the dashboard's HTML and CSS next to the browser script tsc compiled into dist/.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';

const from = new URL('../src/dashboard/page/', import.meta.url);
const to = new URL('../dist/dashboard/page/', import.meta.url);
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) if (/\.(html|css)$/.test(name)) copyFileSync(new URL(name, from), new URL(name, to));
