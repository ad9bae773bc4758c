/**
 * The web room: server-rendered pages for people in a browser (sign-in, User Settings with the API
 * tokens, the GraphQL console, the ticket page) and the console's static assets. It may import
 * serve/auth (sessions, credentials, tokens), serve/http's request helpers and engine/core; never the
 * SAML room, which uses these pages rather than the other way round.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Context, Hono } from 'hono';
import { projectRoot } from '../../core/config';
import { NO_STORE, pageSession, type WebDeps } from './page-session';
import { consolePage, homePage, ticketPage, type TicketView } from './pages';
import { mountSettingsRoutes } from './settings-routes';
import { mountSignInRoutes } from './sign-in-routes';

export type { WebDeps } from './page-session';

/** GraphiQL's browser bundles, served from node_modules so the console needs no network. */
const ASSETS: Record<string, { module: string; type: string }> = {
  'graphiql.min.js': { module: 'graphiql/graphiql.min.js', type: 'text/javascript' },
  'graphiql.min.css': { module: 'graphiql/graphiql.min.css', type: 'text/css' },
  'react.production.min.js': { module: 'react/umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.production.min.js': { module: 'react-dom/umd/react-dom.production.min.js', type: 'text/javascript' },
};

/** GET /assets/:file: one of the console's bundles, cached a day by the browser. */
function serveAsset(c: Context, file: string) {
  const asset = ASSETS[file];
  if (!asset) return c.notFound();
  const body = fs.readFileSync(path.join(projectRoot(), 'node_modules', asset.module));
  return c.body(body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' });
}

/** Server-rendered pages: sign-in, sign-out, User Settings (API tokens) and the GraphQL console. */
export function mountWebRoutes(app: Hono, deps: WebDeps): void {
  const page = pageSession(deps);
  const { csrf, withUser } = page;

  app.get(
    '/',
    withUser((c, user) =>
      c.html(homePage({ csrf: csrf(c), displayName: user.displayName, tenantRole: user.role }), 200, NO_STORE),
    ),
  );
  mountSignInRoutes(app, deps, page);
  mountSettingsRoutes(app, deps, page);

  app.get(
    '/console',
    withUser((c) => c.html(consolePage({ csrf: csrf(c) }), 200, NO_STORE)),
  );

  // The platform's own tickets (tickets_insert_one answers this URL): only the user's tenant's.
  app.get(
    '/tickets/:ticketId',
    withUser(async (c, user) => {
      const ticketId = c.req.param('ticketId') ?? '';
      const [row] = await deps.db.query(
        `SELECT ticket_id, title, description, severity, status, project_key, source, assignee, platform, url,
              to_char(created_at, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at
         FROM tickets WHERE tenant = $1::uuid AND ticket_id = $2::text ORDER BY created_at DESC LIMIT 1`,
        [user.tenantId, ticketId],
      );
      const ticket: TicketView | undefined = row && {
        ticketId: String(row.ticket_id),
        title: String(row.title),
        description: row.description as string | null,
        severity: row.severity as string | null,
        status: row.status as string | null,
        projectKey: row.project_key as string | null,
        source: row.source as string | null,
        assignee: row.assignee as string | null,
        platform: String(row.platform),
        externalUrl: row.url as string | null,
        createdAt: String(row.created_at),
      };
      return c.html(ticketPage({ csrf: csrf(c), ticket, ticketId }), ticket ? 200 : 404, NO_STORE);
    }),
  );

  app.get('/assets/:file', (c) => serveAsset(c, c.req.param('file')));
}
