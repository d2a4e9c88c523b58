/**
 * `aap-chaos audit verify FILE`: checks an audit log's hash chain; exit 0 when every line is
 * intact and linked, 1 naming each line where the chain breaks, 2 when the file cannot be read.
 */
import { readFile, stat } from 'node:fs/promises';
import { verifyAuditText } from './audit.js';

/** Audit files larger than this are refused rather than read into memory. */
const MAX_AUDIT_BYTES = 512 * 1024 * 1024;

export async function runAuditVerify(file: string): Promise<{ output: string; exitCode: number }> {
  let text: string;
  try {
    if ((await stat(file)).size > MAX_AUDIT_BYTES) return { output: `aap-chaos: audit verify: ${file} is larger than ${MAX_AUDIT_BYTES} bytes`, exitCode: 2 };
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { output: `aap-chaos: audit verify: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, exitCode: 2 };
  }
  const verdict = verifyAuditText(text, file);
  if (verdict.ok) return { output: `${file}: ${verdict.entries} entries, chain intact`, exitCode: 0 };
  return {
    output: [
      `${file}: chain broken (${verdict.problems.length} ${verdict.problems.length === 1 ? 'place' : 'places'}):`,
      ...verdict.problems.map((p) => `  ${p}`),
    ].join('\n'),
    exitCode: 1,
  };
}
