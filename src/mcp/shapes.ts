/**
 * Output schemas the tools share: what an agent may rely on in a structured result. Each names
 * the fields worth reading and lets the rest through, so a field the instance adds later never
 * breaks a host that checks results against the schema.
 */
import { z } from 'zod';

export const ruleState = z.looseObject({
  id: z.string(),
  enabled: z.boolean(),
  matched: z.number().describe('requests whose match held'),
  fired: z.number().describe('requests on which the rule fired'),
  effects: z.array(z.string()).describe('one sentence per effect'),
});

export const ttlState = z.looseObject({
  target: z.string().describe('`scenario` or `rule:ID`'),
  expires_at: z.string(),
  remaining_s: z.number(),
  reverts_to: z.string(),
});

export const checkResult = z.looseObject({
  check: z.string(),
  id: z.string().describe('the buyer requirement it enforces, AAP-BUYER-NNN'),
  client: z.string(),
  verdict: z.enum(['PASS', 'FAIL', 'NOT EXERCISED', 'NOT APPLICABLE']),
  evidence: z.array(z.string()).describe('journal line ids that prove the verdict'),
  explanation: z.string(),
});
