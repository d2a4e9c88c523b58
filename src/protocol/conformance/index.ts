/**
 * Dealer conformance: the seed's rules about what a dealer sends, one source of truth for
 * `--check-dealer`, `aap-chaos check` and the project's own tests.
 */
export {
  CONFORMANCE_RULES,
  RULES_BY_ID,
  appliesUnder,
  violationsOf,
  type ConformanceRule,
  type Finding,
  type RuleId,
  type Severity,
  type Violation,
} from './rules.js';
export { checkCard } from './card.js';
export { checkReply } from './reply.js';
export { exchangeRequestOf, type Exchange, type ExchangeRequest } from './exchange.js';
export { responseProblems } from './schemas.js';
