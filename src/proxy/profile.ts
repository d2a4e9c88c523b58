/**
 * Which envelope profile and AAP extension URI the proxy speaks for its dealer. Precedence: an
 * explicit `--profile` flag, then the scenario's `profile:`, then the dealer's agent card (read
 * at start, again every few minutes, and whenever a card passes through). `--extension-uri`
 * wins over the card's URI.
 */
import { findAapExtension } from '../protocol/agent-card.js';
import { AGENT_CARD_PATH } from '../protocol/agent-card.js';
import { extensionUriForProfile, type Profile } from '../protocol/codes.js';
import type { Forwarder } from './forward.js';
import { collect } from './body.js';

export type ProfileSetting = 'auto' | Profile;
/** Where the profile in force came from (what /status and the start-up banner name). */
export type ProfileOrigin = 'flag' | 'scenario' | 'card' | 'default';

const ORIGIN_WORDS: Record<ProfileOrigin, string> = {
  flag: 'set by --profile',
  scenario: "from the scenario's profile:",
  card: "from the dealer's card",
  default: 'default until the card is read',
};

export function describeProfileOrigin(origin: ProfileOrigin): string {
  return ORIGIN_WORDS[origin] ?? origin;
}

const REFRESH_MS = 5 * 60_000;

export class ProfileTracker {
  profile: Profile;
  extensionUri: string;
  /** Where the current values came from: the flag, the scenario, the dealer's card, or the fallback. */
  origin: ProfileOrigin;
  /** Whether the dealer's card marks its AAP extension required (undefined until a card is seen). */
  extensionRequired: boolean | undefined;
  /** Why the dealer's card gave no profile on the last read, while `origin` is 'default'. */
  fallbackReason: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** What the dealer's card declared last, if one was seen. */
  private cardUri: string | undefined;
  private cardProfile: Profile | undefined;
  /** Told of every card the dealer serves, as read (the recorder keeps it). */
  onCard: ((card: unknown) => void) | undefined;

  constructor(
    private readonly forwarder: Forwarder,
    private setting: ProfileSetting,
    private readonly uriOverride?: string,
    /** Who fixed a non-auto setting: the flag (default) or a scenario. */
    settingOrigin: 'flag' | 'scenario' = 'flag',
  ) {
    this.profile = setting === 'auto' ? '1.3' : setting;
    this.extensionUri = uriOverride ?? extensionUriForProfile(this.profile);
    this.origin = setting === 'auto' ? 'default' : settingOrigin;
  }

  /** Changes the setting live (a new scenario with its own `profile:`); `auto` re-reads the card. */
  configure(setting: ProfileSetting, settingOrigin: 'flag' | 'scenario' = 'flag'): void {
    if (setting === this.setting) {
      if (setting !== 'auto') this.origin = settingOrigin;
      return;
    }
    this.setting = setting;
    if (setting === 'auto') {
      // The last card seen answers at once; a fresh read confirms it in the background.
      this.profile = this.cardProfile ?? '1.3';
      this.origin = this.cardProfile ? 'card' : 'default';
      void this.refresh();
      return;
    }
    this.profile = setting;
    this.origin = settingOrigin;
    if (!this.uriOverride) this.extensionUri = this.cardUri ?? extensionUriForProfile(setting);
  }

  async start(): Promise<void> {
    if (this.setting !== 'auto' && this.uriOverride) return;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Reads the dealer's card; an unreachable dealer keeps the values already known. */
  async refresh(): Promise<void> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 5_000);
    try {
      const res = await this.forwarder.request({
        path: this.forwarder.upstreamPath(AGENT_CARD_PATH),
        method: 'GET',
        headers: { accept: 'application/json', 'a2a-version': '1.0' },
        signal: ac.signal,
      });
      const text = Buffer.concat(await collect(res.body)).toString('utf8');
      if (res.statusCode !== 200) this.fallbackReason = `the dealer answered ${res.statusCode} for ${AGENT_CARD_PATH}`;
      else {
        let card: unknown;
        try {
          card = JSON.parse(text);
        } catch {
          this.fallbackReason = `the dealer's agent card is not valid JSON`;
        }
        if (card !== undefined) {
          this.observeCard(card);
          if (!findAapExtension(card)) this.fallbackReason = `the dealer's agent card names no AAP extension`;
        }
      }
    } catch (err) {
      // keep what we have; the next refresh or a card passing through will correct it
      this.fallbackReason = `the dealer's agent card could not be read (${(err as { code?: string }).code ?? (err as Error).message})`;
    } finally {
      clearTimeout(timer);
    }
  }

  observeCard(card: unknown): void {
    this.onCard?.(card);
    const ext = findAapExtension(card);
    if (!ext) return;
    this.fallbackReason = undefined;
    this.cardUri = ext.uri;
    this.extensionRequired = ext.required;
    this.cardProfile = ext.profile;
    if (this.setting === 'auto') {
      this.profile = ext.profile;
      this.origin = 'card';
    }
    if (!this.uriOverride) this.extensionUri = ext.uri;
  }
}
