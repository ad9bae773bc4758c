/**
 * The http room: the HTTP surface put together (health, the API-token exchange, GraphQL at
 * /api/graphql and /v1/graphql, the 404 and error answers) and the request helpers that read Node's
 * headers and body directly. It may import the rooms it mounts (serve/auth, saml, web), engine/compile
 * (the engine it serves) and engine/core; nothing in serve/auth may import it.
 */
import { Hono } from 'hono';
import type { Database } from '../../core/db/database';
import type { Engine } from '../../compile/execute/engine';
import { errorBody } from '../../core/errors';
import type { AuthConfig } from '../../core/config';
import { samlAvailable } from '../saml/health';
import { mountSamlRoutes, type SamlDeps } from '../saml/routes';
import { mountOAuthRoutes, oauthSignInMethods, type OAuthDeps } from '../oauth/routes';
import { mountWebRoutes, type SignedInPage } from '../web/routes';
import { mountAuthRoutes } from './auth-routes';
import { adminSecretSessions } from '../auth/admin-secret';
import type { SessionResolver } from '../../core/session';
import { graphqlRoutes } from './graphql-route';
import { mountCors } from './cors';
import { mountAdminCommandRoute, type AdminCommandRunner } from './admin-command-route';
import { mountHealthRoutes } from './health-routes';
import { mountMetadataRoute } from './metadata-route';
import type { ReloadResult } from '../../compile/execute/live-engine';
import { mountVersionRoute } from './version-route';
import { mountObserve, requestOf, type ObserveOptions } from './observe';
import { mountMetricsRoute, type MetricsExposure } from './metrics-route';
import type { Metrics } from '../../core/metrics';

export interface AppOptions {
  engine: Engine;
  db: Database;
  bodyBytes: number;
  adminSecret?: string;
  resolveSession?: SessionResolver;
  /** Sign-in settings: with them, POST /api/auth/token (the API-token exchange) is served. */
  auth?: AuthConfig;
  /** SAML settings and the license: with them (and `auth`), the /api/auth/saml routes are served. */
  saml?: Omit<SamlDeps, 'db'>;
  /** Provider sign-in settings: with them (and `auth`), /api/auth/signin|callback/<provider> are served. */
  oauth?: Omit<OAuthDeps, 'db' | 'samlEnabled'>;
  /** Pages other rooms add behind sign-in (served with `auth`). */
  pages?: readonly SignedInPage[];
  /** CORS_ORIGINS: origins whose pages may call the API (none when absent). */
  corsOrigins?: readonly string[];
  /** With it, POST /api/admin/command runs `npm run admin` commands on this engine's database. */
  adminCommand?: AdminCommandRunner;
  /** With it, POST /v1/metadata {"type": "reload_metadata"} reloads the metadata folder (admin secret). */
  reloadMetadata?: () => Promise<ReloadResult>;
  /** True once shutdown has begun: readiness then fails, so that load balancers send nothing new. */
  draining?: () => boolean;
  /** Access lines, request metrics and spans (observe.ts); without it, none. */
  observe?: ObserveOptions;
  /** GET /metrics on this port, when its exposure has a token (metrics-route.ts). */
  metrics?: { metrics: Metrics; exposure: MetricsExposure };
}

/** The HTTP surface: health, the token exchange, and GraphQL at /api/graphql (and Hasura's /v1/graphql). */
export function createApp(opts: AppOptions): Hono {
  const app = new Hono();
  // First: every request, the preflights and refusals included, gets its id and its access line.
  if (opts.observe) mountObserve(app, opts.observe);
  if (opts.metrics) mountMetricsRoute(app, opts.metrics.metrics, opts.metrics.exposure);
  // Before the routes: a preflight must be answered before any route sees the request.
  mountCors(app, ['/api/graphql', '/v1/graphql', '/api/auth/token'], opts.corsOrigins ?? []);
  // Health checks and sign-in run on the reserve pool: slow statements on the main one never starve them.
  const db = opts.db.reserve ?? opts.db;
  mountHealthRoutes(app, db, opts.draining ?? (() => false), opts.db.replicas);
  mountVersionRoute(app);
  if (opts.auth) {
    mountAuthRoutes(app, { db, auth: opts.auth });
    const saml = opts.saml;
    const oauth = opts.oauth;
    const signInMethods = oauth ? () => oauthSignInMethods(oauth.config) : undefined;
    if (saml) mountSamlRoutes(app, { ...saml, db, signInMethods });
    const samlEnabled = () => (saml ? samlAvailable(saml.config) : false);
    if (oauth) mountOAuthRoutes(app, { ...oauth, db, samlEnabled });
    mountWebRoutes(app, {
      db: opts.db,
      config: { auth: opts.auth },
      samlEnabled,
      signInMethods,
      pages: opts.pages,
      roles: () => opts.engine.model.roles,
    });
  }
  if (opts.adminCommand) mountAdminCommandRoute(app, opts.adminSecret, opts.adminCommand);
  if (opts.reloadMetadata) mountMetadataRoute(app, opts.adminSecret, opts.reloadMetadata);
  const graphql = graphqlRoutes(
    opts.engine,
    opts.resolveSession ?? adminSecretSessions(opts.adminSecret),
    opts.bodyBytes,
  );
  for (const path of ['/api/graphql', '/v1/graphql']) {
    app.post(path, graphql.post);
    app.get(path, graphql.get);
  }
  app.notFound((c) =>
    c.body(
      errorBody([
        {
          message: `no route for ${c.req.method} ${new URL(c.req.url).pathname}`,
          code: 'not-found' as never,
          path: '$',
        },
      ]),
      404,
      { 'content-type': 'application/json' },
    ),
  );
  app.onError((err, c) => {
    const r = opts.engine.failure(err, undefined, requestOf(c));
    return c.body(r.body, r.status as 500, { 'content-type': 'application/json', ...r.headers });
  });
  return app;
}
