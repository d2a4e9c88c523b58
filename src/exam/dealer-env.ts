/**
 * What a buyer is told of several dealers: AAP_DEALER_URLS, each dealer's base URL on the proxy,
 * comma-separated in the order given (each ends with "/": the card is at BASE.well-known/agent-card.json
 * and the SDK resolves it against the base), and AAP_DEALER_URL, the first of them, for a buyer that
 * knows only one dealer.
 */
export function dealerEnv(dealerUrls: Record<string, string> | undefined): Record<string, string> {
  if (dealerUrls === undefined) return {};
  const urls = Object.values(dealerUrls);
  return { AAP_DEALER_URLS: urls.join(','), AAP_DEALER_URL: urls[0]!, AAP_DEALER_NAMES: Object.keys(dealerUrls).join(',') };
}
