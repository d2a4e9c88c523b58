/**
 * no-duplicate-lead (AAP-BUYER-102): one customer's lead (the same lead.submit payload but for its
 * idempotency key: same contact, same vehicle) reaches each dealer at most once as a new lead. Sent
 * to one dealer twice under different idempotency keys, it is a duplicate; after a lost reply it
 * is retried at the same dealer under the same key, never sent to another dealer as a new lead
 * (the first dealer may well have it). Contacts are never read here: the journal keeps only the
 * payload's hash.
 */
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notExercised, pass, plural, type Check } from './check.js';
import { outcomeUnknown, sentAfterReply } from './read-line.js';

export const NO_DUPLICATE_LEAD_REQUIREMENT = 'AAP-BUYER-102';

export const noDuplicateLeadCheck: Check = {
  requirement: {
    id: NO_DUPLICATE_LEAD_REQUIREMENT,
    level: 'MUST',
    profiles: ['1.3', '2.0'],
    seed: {
      section: 'Per-code semantics › IDEMPOTENCY_CONFLICT; lead.submit idempotency_key, applied across dealers',
      quote: 'a lead is retried under the same idempotency_key at the same dealer, never re-sent as a new lead',
    },
  },
  acrossDealers: true,
  skills: ['lead.submit'],
  rule: `${NO_DUPLICATE_LEAD_REQUIREMENT}: one customer's lead is not submitted to a dealer twice under different idempotency keys, and a lost lead reply is retried at the same dealer with the same key, not re-sent to another dealer.`,
  grade({ requests }) {
    const leads = requests.filter((e) => e.skill === 'lead.submit' && e.dealer !== undefined && e.request_hash !== undefined);
    if (leads.length === 0) return notExercised('this client submitted no lead through a multi-dealer proxy');
    const byCustomer = new Map<string, JournalEntry[]>();
    for (const e of leads) byCustomer.set(e.request_hash!, [...(byCustomer.get(e.request_hash!) ?? []), e]);
    for (const sends of byCustomer.values()) {
      // Same dealer, another key: the dealer files it as a second lead.
      const keyAt = new Map<string, JournalEntry>();
      for (const e of sends) {
        const seen = keyAt.get(e.dealer!);
        if (seen && seen.idempotency_key !== e.idempotency_key)
          return fail([seen.id, e.id], `sent the same lead to dealer ${e.dealer} under two idempotency keys; retry a lead with the key it was first sent with`);
        keyAt.set(e.dealer!, seen ?? e);
      }
      // A lost reply, then the lead at another dealer: the customer may now be contacted twice.
      for (const lost of sends.filter(outcomeUnknown)) {
        const elsewhere = sends.find((e) => e.dealer !== lost.dealer && sentAfterReply(lost, e) && !sends.some((p) => p.dealer === e.dealer && p.t < lost.t));
        if (elsewhere)
          return fail(
            [lost.id, elsewhere.id],
            `the reply to a lead at dealer ${lost.dealer} was lost, and the same lead went to dealer ${elsewhere.dealer} as a new lead; retry it at ${lost.dealer} with the same idempotency key`,
          );
      }
    }
    return pass(
      leads.map((e) => e.id),
      `${plural(byCustomer.size, 'lead')} sent, none twice to a dealer nor moved to another dealer after a lost reply`,
    );
  },
};
