/**
 * `GET /events`: every journal line, live, to each WebSocket client. Sending never waits for a
 * client: one that reads too slowly has its messages dropped past a bounded buffer, and once it
 * has caught up it is told how many it missed with `{"type":"dropped","count":N}`.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { JournalEntry } from '../journal/entry.js';
import { journalJson } from '../journal/line.js';
import type { RequestObserver } from '../journal/entry.js';

/** Bytes a client may have waiting before its messages are dropped. */
export const DEFAULT_EVENTS_BUFFER_BYTES = 1024 * 1024;
/** How long a client gets to answer the close handshake at shutdown. */
const CLOSE_GRACE_MS = 1_000;

export interface DroppedNotice {
  type: 'dropped';
  count: number;
}

interface Client {
  socket: WebSocket;
  /** The upgraded connection under `socket`: corked while one turn's messages are queued on it. */
  connection: Duplex;
  missed: number;
}

export class EventHub implements RequestObserver {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly clients = new Set<Client>();
  /** Messages dropped for slow clients since start. */
  dropped = 0;
  /** Connections corked until the end of this turn (see corkUntilNextTurn). */
  private corked: Duplex[] = [];

  constructor(
    private readonly bufferCap: number = DEFAULT_EVENTS_BUFFER_BYTES,
    private readonly onDropped: (count: number) => void = () => {},
  ) {}

  get clientCount(): number {
    return this.clients.size;
  }

  /** Completes an upgrade the admin server has already authorised. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const client: Client = { socket: ws, connection: socket, missed: 0 };
      this.clients.add(client);
      ws.on('close', () => this.clients.delete(client));
      ws.on('error', () => ws.terminate());
    });
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
      if (client.socket.readyState !== WebSocket.OPEN) continue;
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
      if (client.socket.readyState !== WebSocket.OPEN) continue;
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
    if (client.missed === 0 || client.socket.readyState !== WebSocket.OPEN) return;
    const notice: DroppedNotice = { type: 'dropped', count: client.missed };
    client.missed = 0;
    client.socket.send(JSON.stringify(notice));
  }

  /** Closes every client with a close frame; those that do not answer in time are cut. */
  async close(): Promise<void> {
    const closing = [...this.clients].map(
      ({ socket }) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve();
          const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
          socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          socket.close(1001, 'aap-chaos is shutting down');
        }),
    );
    await Promise.all(closing);
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
