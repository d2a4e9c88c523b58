/**
 * `GET /events`: every journal line, live, to each WebSocket client. Sending never waits for a
 * client: one that reads too slowly has its messages dropped past a bounded buffer, and once it
 * has caught up it is told how many it missed with `{"type":"dropped","count":N}`.
 *
 * The stream goes one way, so what a client may send is small and bounded (control frames), the
 * number of clients is capped, and a client that stops answering pings is cut: a dead peer does
 * not hold a socket and its buffer for ever.
 */
import { boundReached } from '../common/bound-counts.js';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { JournalEntry } from '../journal/entry.js';
import { journalJson } from '../journal/line.js';
import type { RequestObserver } from '../journal/entry.js';
import { EVENTS_PROTOCOL } from './auth.js';

/** Bytes a client may have waiting before its messages are dropped. */
export const DEFAULT_EVENTS_BUFFER_BYTES = 1024 * 1024;
/** How long a client gets to answer the close handshake at shutdown. */
const CLOSE_GRACE_MS = 1_000;
/** Clients at once; one more is refused with 503 (docs/reliability.md). */
export const DEFAULT_MAX_EVENT_CLIENTS = 64;
/** A ping this often; a client that has not answered the previous one by then is cut. */
export const DEFAULT_EVENTS_HEARTBEAT_MS = 30_000;
/**
 * Largest frame a client may send. Clients send nothing but control frames (ping, pong, close:
 * at most 125 bytes each); the library's default would buffer up to 100 MiB of a message.
 */
const MAX_CLIENT_FRAME_BYTES = 1024;

export interface EventHubLimits {
  maxClients?: number;
  heartbeatMs?: number;
}

export interface DroppedNotice {
  type: 'dropped';
  count: number;
}

/** What /events says about a change that was not a request. */
export interface ChangeNotice {
  type: 'notice';
  ts: string;
  /** e.g. ttl-expired, lever-pulled, lever-released, guardrail-breach. */
  event: string;
  message: string;
  replica?: string;
}

interface Client {
  socket: WebSocket;
  /** The upgraded connection under `socket`: corked while one turn's messages are queued on it. */
  connection: Duplex;
  missed: number;
  /** Whether the client answered the last ping. */
  alive: boolean;
}

/** WebSocket ready states (RFC 6455 names, the values every implementation uses). */
const OPEN = 1;
const CLOSED = 3;

export class EventHub implements RequestObserver {
  /** Made on the first upgrade: a run nobody watches never loads the WebSocket library. */
  private wss: Promise<WebSocketServer> | undefined;
  private readonly clients = new Set<Client>();
  /** Upgrades accepted while the WebSocket library loads; they count against the client limit. */
  private pending = 0;
  /** Messages dropped for slow clients since start. */
  dropped = 0;
  /** Connections corked until the end of this turn (see corkUntilNextTurn). */
  private corked: Duplex[] = [];

  private readonly maxClients: number;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly bufferCap: number = DEFAULT_EVENTS_BUFFER_BYTES,
    private readonly onDropped: (count: number) => void = () => {},
    limits: EventHubLimits = {},
  ) {
    this.maxClients = limits.maxClients ?? DEFAULT_MAX_EVENT_CLIENTS;
    this.heartbeat = setInterval(() => this.checkAlive(), limits.heartbeatMs ?? DEFAULT_EVENTS_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Why one more client cannot be taken now, or undefined (the admin server answers 503 with it). */
  refusal(): string | undefined {
    if (this.clients.size + this.pending < this.maxClients) return undefined;
    boundReached('events_clients');
    return `${this.maxClients} /events clients are connected, the most this instance serves; close one, or read the journal with GET /journal`;
  }

  /** Completes an upgrade the admin server has already authorised (and checked `refusal()` for). */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.pending++;
    this.server().then(
      (wss) => {
        this.pending--;
        // The client may have gone, or the hub closed, while the library loaded.
        if (socket.destroyed || this.closed) return void socket.destroy();
        wss.handleUpgrade(req, socket, head, (ws) => {
          const client: Client = { socket: ws, connection: socket, missed: 0, alive: true };
          this.clients.add(client);
          ws.on('close', () => this.clients.delete(client));
          ws.on('error', () => ws.terminate());
          ws.on('pong', () => (client.alive = true));
        });
      },
      () => {
        this.pending--;
        socket.destroy();
      },
    );
  }

  private server(): Promise<WebSocketServer> {
    this.wss ??= import('ws').then(
      ({ WebSocketServer }) =>
        new WebSocketServer({
          noServer: true,
          perMessageDeflate: false,
          maxPayload: MAX_CLIENT_FRAME_BYTES,
          // Only ever the events protocol: a token offered as a subprotocol (before it, or alone) is never echoed back.
          handleProtocols: (offered) => (offered.has(EVENTS_PROTOCOL) ? EVENTS_PROTOCOL : false),
        }),
    );
    return this.wss;
  }

  /** Cuts each client that did not answer the previous ping, and pings the others. */
  private checkAlive(): void {
    for (const client of this.clients) {
      if (!client.alive) {
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }

  /**
   * A change the proxy made or saw besides requests (a TTL ran out, the safety lever moved), as
   * `{"type": "notice", …}`; rare, so sent to each client at once.
   */
  notice(notice: Omit<ChangeNotice, 'type' | 'ts'>): void {
    const message = JSON.stringify({ type: 'notice', ts: new Date().toISOString(), ...notice });
    for (const client of this.clients) if (client.socket.readyState === OPEN) client.socket.send(message);
  }

  /** A subscriber gets each line's text at once. */
  readsWholeEntry(): boolean {
    return this.clients.size > 0;
  }

  onRequestDone(entry: JournalEntry): void {
    // No subscriber, no work: the text is built only for a client, and shared with the journal file.
    if (this.clients.size === 0) return;
    this.broadcast(journalJson(entry));
  }

  /** Sends a message that is not a journal line (it has a `type`, as `dropped` notices do). */
  publish(message: { type: string }): void {
    if (this.clients.size === 0) return;
    this.broadcast(JSON.stringify(message));
  }

  private broadcast(message: string): void {
    this.corkUntilNextTurn();
    for (const client of this.clients) {
      if (client.socket.readyState !== OPEN) continue;
      if (client.socket.bufferedAmount > this.bufferCap) {
        client.missed += 1;
        this.dropped += 1;
        this.onDropped(1);
        continue;
      }
      this.send(client, message);
    }
  }

  /**
   * Every message of one turn of the event loop leaves in one write per client: under load many
   * requests finish in the same turn, and a socket write per message cost more than the message.
   * Each stays its own WebSocket frame; only the writes are joined.
   */
  private corkUntilNextTurn(): void {
    if (this.corked.length > 0) return;
    for (const client of this.clients) {
      if (client.socket.readyState !== OPEN) continue;
      client.connection.cork();
      this.corked.push(client.connection);
    }
    if (this.corked.length > 0) setImmediate(this.uncork);
  }

  private readonly uncork = (): void => {
    for (const connection of this.corked) if (!connection.destroyed) connection.uncork();
    this.corked = [];
  };

  /**
   * Sends one message. Its callback runs once the bytes have left the buffer: that is when a
   * client which missed messages has caught up and can be told, even if no further request comes.
   */
  private send(client: Client, message: string): void {
    this.sendMissedNotice(client);
    client.socket.send(message, () => {
      if (client.socket.bufferedAmount <= this.bufferCap) this.sendMissedNotice(client);
    });
  }

  private sendMissedNotice(client: Client): void {
    if (client.missed === 0 || client.socket.readyState !== OPEN) return;
    const notice: DroppedNotice = { type: 'dropped', count: client.missed };
    client.missed = 0;
    client.socket.send(JSON.stringify(notice));
  }

  /** Closes every client with a close frame; those that do not answer in time are cut. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    const closing = [...this.clients].map(
      ({ socket }) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === CLOSED) return resolve();
          const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
          socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          socket.close(1001, 'aap-chaos is shutting down');
        }),
    );
    await Promise.all(closing);
    const wss = await this.wss;
    if (wss) await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
}
