/**
 * What both WebSocket protocols share: a connection's session, its operations (live queries through
 * the instance's LiveQueries, queries and mutations run once), the limits per connection and per
 * instance, and the session check that ends a connection's subscriptions once its credentials are
 * no longer good (JWT expired, API token deleted, user suspended, session ended).
 */
import type { IncomingMessage } from 'node:http';
import type { SubscriptionConfig } from '../../core/config';
import { RequestError } from '../../core/errors';
import type { HeaderBag } from '../../core/headers';
import type { Session, SessionResolver } from '../../core/session';
import { asRequest, type Engine, type LiveQuery } from '../../compile/execute/engine';
import type { LiveQueries, LiveSink } from '../../compile/execute/live-queries';
import { checkCookieOrigin, connectionHeaders } from './connection-session';

/** An error as the protocols send it: Hasura's `{message, extensions: {code, path}}`. */
export interface WireError {
  message: string;
  extensions: Record<string, unknown>;
}

/** How often the sessions of connections with subscriptions are checked again. */
const SESSION_CHECK_MS = 1000;

/** What a request over WebSocket is: a live query to follow, or an operation answered once. */
export type Prepared = { kind: 'live'; live: LiveQuery } | { kind: 'once'; request: ReturnType<typeof asRequest> };

export interface HubDeps {
  engine: Engine;
  live: LiveQueries;
  resolveSession: SessionResolver;
  config: SubscriptionConfig;
  corsOrigins: string[];
  log: (entry: Record<string, unknown>) => void;
}

export class SubscriptionHub {
  private readonly clients = new Set<WsClient>();
  /** Subscriptions running on the instance (WS_MAX_SUBSCRIPTIONS). */
  running = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(readonly deps: HubDeps) {
    this.timer = setInterval(() => void this.checkSessions(), SESSION_CHECK_MS);
    this.timer.unref();
  }

  /** A connection's session from its upgrade request and connection_init payload, or a RequestError. */
  async connect(request: IncomingMessage, payload: unknown, onRevoked: (ids: string[], errors: WireError[]) => void) {
    const headers = connectionHeaders(request, payload);
    const session = await this.deps.resolveSession(headers);
    checkCookieOrigin(session, request, this.deps.corsOrigins);
    const client = new WsClient(this, headers, session, onRevoked);
    this.clients.add(client);
    return client;
  }

  /** @internal */
  forget(client: WsClient): void {
    this.clients.delete(client);
  }

  /** Errors of a failure, as `run` would answer them; internal details only for the admin secret. */
  errorsOf(err: unknown, session?: Session): WireError[] {
    return (JSON.parse(this.deps.engine.failure(err, session).body) as { errors: WireError[] }).errors;
  }

  /**
   * Each connection that follows something is asked for its session again, as an HTTP request would
   * be: the resolver knows of deleted tokens and suspended users within a second (revocation.ts) and
   * checks a JWT's expiry, so subscriptions end as soon as a request with the same credentials fails.
   */
  private async checkSessions(): Promise<void> {
    for (const client of [...this.clients]) {
      if (client.following === 0) continue;
      try {
        await this.deps.resolveSession(client.headers);
      } catch (err) {
        if (err instanceof RequestError && (err.code === 'busy' || err.code === 'database-unavailable')) continue;
        client.revoke(this.errorsOf(err));
      }
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const c of [...this.clients]) c.close();
  }
}

/** One WebSocket connection once its session is known. */
export class WsClient {
  private readonly stops = new Map<string, () => void>();

  constructor(
    private readonly hub: SubscriptionHub,
    readonly headers: HeaderBag,
    readonly session: Session,
    private readonly onRevoked: (ids: string[], errors: WireError[]) => void,
  ) {}

  get following(): number {
    return this.stops.size;
  }

  has(id: string): boolean {
    return this.stops.has(id);
  }

  /**
   * Validates and plans operation `id`; a subscription must fit the limits and takes its place in
   * them at once (`follow` starts it, `stop` gives the place back). Throws a RequestError.
   */
  prepare(id: string, payload: unknown): Prepared {
    const request = asRequest(payload);
    const live = this.hub.deps.engine.liveQuery(request, this.session);
    if (!live) return { kind: 'once', request };
    const { maxPerConnection, maxTotal } = this.hub.deps.config;
    if (this.stops.size >= maxPerConnection)
      throw new RequestError(
        'bad-request',
        `a connection may run at most ${maxPerConnection} subscriptions (WS_MAX_SUBSCRIPTIONS_PER_CONNECTION)`,
        '$',
      );
    if (this.hub.running >= maxTotal)
      throw new RequestError('busy', `the server runs its most subscriptions (${maxTotal}); try later`, '$');
    this.stops.set(id, () => undefined);
    this.hub.running++;
    return { kind: 'live', live };
  }

  /** A query or mutation over the socket: the engine's answer, JSON text. */
  async runOnce(request: Prepared & { kind: 'once' }): Promise<string> {
    return (await this.hub.deps.engine.run(request.request, this.session)).body;
  }

  /** Follows a prepared live query under `id` until `stop(id)`, its own error, or the connection's end. */
  follow(id: string, live: LiveQuery, sink: LiveSink): void {
    if (!this.stops.has(id)) return;
    const stop = this.hub.deps.live.subscribe(live, {
      next: (body) => sink.next(body),
      error: (err) => {
        this.release(id);
        sink.error(err);
      },
    });
    this.stops.set(id, stop);
  }

  private release(id: string): boolean {
    if (!this.stops.delete(id)) return false;
    this.hub.running--;
    return true;
  }

  stop(id: string): void {
    const stop = this.stops.get(id);
    if (stop && this.release(id)) stop();
  }

  errorsOf(err: unknown): WireError[] {
    return this.hub.errorsOf(err, this.session);
  }

  /** The session is no longer good: every subscription ends, and the transport tells the client. */
  revoke(errors: WireError[]): void {
    const ids = [...this.stops.keys()];
    this.close();
    this.onRevoked(ids, errors);
  }

  close(): void {
    for (const id of [...this.stops.keys()]) this.stop(id);
    this.hub.forget(this);
  }
}
