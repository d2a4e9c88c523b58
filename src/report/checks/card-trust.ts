/**
 * card-trust: a buyer that is given the keys it should trust cards by (`exam --card-trust` hands it
 * AAP_CARD_JWKS_URL) acts only on an agent card whose signature verifies. Opt-in: it rests on
 * A2A v1.0's card signing section, not on the AAP seed, and a buyer that never meets a signed card
 * cannot show it. The journal tells which cards were served forged (`card_signatures`: tamper,
 * strip, unknown-key, wrong-alg); a skill call is "on the strength of" the last card the client
 * had received before it started. A client that refuses, or fetches the card again until it gets
 * one that verifies, passes.
 */
import { isForgedSignatureState } from '../../protocol/card-signature.js';
import type { JournalEntry } from '../../journal/entry.js';
import { fail, notApplicable, notExercised, pass, plural, type Check } from './check.js';

/** The last card the client had received before `call` started (1 ms of slack for whole-millisecond start times). */
function cardBefore(cards: readonly JournalEntry[], call: JournalEntry): JournalEntry | undefined {
  let last: JournalEntry | undefined;
  for (const card of cards) if (card.t + card.duration_ms <= call.t + 1 && card.status === 200) last = card;
  return last;
}

export const cardTrustCheck: Check = {
  requirement: {
    id: 'AAP-BUYER-012',
    level: 'SHOULD',
    profiles: ['1.3', '2.0'],
    seed: {
      section: 'A2A v1.0 §8.4.3 Signature Verification (A2A itself, not the AAP seed)',
      quote: 'Clients SHOULD verify at least one signature before trusting an Agent Card',
    },
  },
  // Graded where signed cards are in play: a line says what became of a card's signatures.
  optIn: { shownBy: (entries) => entries.some((e) => e.card_signatures !== undefined) },
  rule: 'Given the keys to trust agent cards by, the client calls no skill on the strength of a card whose signature does not verify (tampered, stripped, by an unknown key, or under the wrong alg): it refuses, or fetches the card again until one verifies.',
  grade({ cards = [], requests }) {
    const forged = cards.filter((c) => isForgedSignatureState(c.card_signatures));
    if (forged.length === 0)
      return cards.some((c) => c.card_signatures !== undefined)
        ? notExercised('no card with a forged or missing signature reached this client')
        : notApplicable(
            'no signed agent card was served to this client (aap-chaos exam --card-trust, or a proxy with --card-signing-key and a signature fault)',
          );
    const trusted = requests.filter((r) => r.skill !== undefined).map((call) => ({ call, card: cardBefore(cards, call) }));
    const misplaced = trusted.filter(({ card }) => card !== undefined && isForgedSignatureState(card.card_signatures));
    if (misplaced.length > 0) {
      const { call, card } = misplaced[0]!;
      return fail(
        misplaced.flatMap(({ call, card }) => [card!.id, call.id]),
        `called ${call.skill} after the agent card it got came with a signature that does not verify (${card!.card_signatures}); ${plural(misplaced.length, 'call')} trusted a forged card`,
      );
    }
    const later = cards.filter((c) => c.t > forged[0]!.t && c.card_signatures !== undefined && !isForgedSignatureState(c.card_signatures));
    return pass(
      [...forged.map((c) => c.id), ...later.slice(0, 1).map((c) => c.id)],
      trusted.length === 0
        ? `refused: no skill call after ${plural(forged.length, 'forged card')}`
        : `called skills only on a card that verifies, after refusing ${plural(forged.length, 'forged card')}`,
    );
  },
};
