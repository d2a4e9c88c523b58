/**
 * Which `Host` a listener answers to. Listening on loopback, a listener is meant for this machine
 * only; a web page whose name an attacker re-points at 127.0.0.1 (DNS rebinding) would otherwise
 * use it as a relay, with the page's own name in `Host`. So on loopback only loopback names pass,
 * and the names the operator adds (`--allow-host`; `*.example.test` covers its subdomains).
 * Listening on any other address, the machine's names cannot be known: every Host passes, as in
 * the admin API. The proxy holds buyers to it, and so do the dealers a run starts itself (the
 * embedded mock, a replay), which only the proxy has any business calling.
 */
import type { ServerResponse } from 'node:http';
import { buildRequestRefused } from '../protocol/envelopes.js';
import { stringifyJsonRpc } from '../protocol/rpc-id.js';
import { hostName, isLoopbackHost, isLoopbackName } from './host-names.js';

export class HostCheck {
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];
  /** Whether Host is checked at all: only when the listener is on loopback. */
  readonly active: boolean;
  /**
   * The last Host that passed: a buyer sends the same one on every request, and the check showed
   * in the injected-error path's profile. One string, so what the network sends cannot grow it.
   */
  private lastPassed: string | undefined;

  /**
   * `listenHost`: the address the listener is bound to; `allowed`: --allow-host names; `what`
   * names the listener in a refusal (`proxy`, `dealer`); `remedy` ends the refusal, given the name.
   */
  constructor(
    private readonly listenHost: string,
    allowed: readonly string[] = [],
    private readonly what = 'proxy',
    private readonly remedy: (name: string) => string = (name) => `, or start it with --allow-host ${name}`,
  ) {
    this.active = isLoopbackHost(listenHost);
    for (const name of allowed.map((a) =>
      a
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, ''),
    )) {
      if (name.startsWith('*.')) this.suffixes.push(name.slice(1));
      else this.exact.add(name);
    }
  }

  /** Why a request with this Host is refused, or undefined. No Host (HTTP/1.0) passes: no browser sends that. */
  refusal(host: string | undefined): string | undefined {
    if (host === undefined || !this.active || host === this.lastPassed) return undefined;
    const name = hostName(host);
    if (isLoopbackName(name) || this.exact.has(name) || this.suffixes.some((s) => name.endsWith(s))) {
      this.lastPassed = host;
      return undefined;
    }
    return `Host "${host.slice(0, 100)}" is not a name of this ${this.what}, which listens on ${this.listenHost}: use a loopback name (127.0.0.1, localhost, [::1])${this.remedy(name.slice(0, 100))}`;
  }
}

/** 421 Misdirected Request with a JSON-RPC error naming why (and the listener's own `headers`); the connection closes. */
export function refuseHost(res: ServerResponse, message: string, headers: Record<string, string> = {}): void {
  const bytes = Buffer.from(stringifyJsonRpc(buildRequestRefused(message)));
  res.writeHead(421, { ...headers, 'content-type': 'application/json', 'content-length': bytes.length, connection: 'close' });
  res.end(bytes);
}
