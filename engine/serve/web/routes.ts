/**
 * The web room: server-rendered pages for people in a browser (sign-in, User Settings with the API
 * tokens, the GraphQL console, pages other rooms contribute) and the console's static assets. It may import
 * serve/auth (sessions, credentials, tokens), serve/http's request helpers and engine/core; never the
 * SAML room, which uses these pages rather than the other way round.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Context, Hono } from 'hono';
import { projectRoot } from '../../core/config';
import { NO_STORE, pageSession, type WebDeps } from './page-session';
import { consolePage } from './console-page';
import { FAVICON } from './layout';
import { appPage, homePage } from './pages';
import { mountSettingsRoutes } from './settings-routes';
import { mountSignInRoutes } from './sign-in-routes';

export type { SignedInPage, WebDeps } from './page-session';

/** GraphiQL's browser bundles, served from node_modules so the console needs no network. */
const ASSETS: Record<string, { module: string; type: string }> = {
  'graphiql.min.js': { module: 'graphiql/graphiql.min.js', type: 'text/javascript' },
  'graphiql.min.css': { module: 'graphiql/graphiql.min.css', type: 'text/css' },
  'react.production.min.js': { module: 'react/umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.production.min.js': { module: 'react-dom/umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql-plugin-explorer.umd.js': { module: '@graphiql/plugin-explorer/dist/index.umd.js', type: 'text/javascript' },
  'graphiql-plugin-explorer.css': { module: '@graphiql/plugin-explorer/dist/style.css', type: 'text/css' },
};

/** GET /assets/:file: one of the console's bundles, cached a day by the browser. */
function serveAsset(c: Context, file: string) {
  const asset = ASSETS[file];
  if (!asset) return c.notFound();
  const body = fs.readFileSync(path.join(projectRoot(), 'node_modules', asset.module));
  return c.body(body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' });
}

/**
 * Server-rendered pages: sign-in, sign-out, User Settings (API tokens), the GraphQL console, and the
 * signed-in pages other rooms add (`deps.pages`).
 */
export function mountWebRoutes(app: Hono, deps: WebDeps): void {
  // Sign-in, session checks and the token settings run on the reserve pool, as the token exchange
  // does: slow queries elsewhere never keep a person from signing in. Pages of other rooms do not.
  const signIn: WebDeps = { ...deps, db: deps.db.reserve ?? deps.db };
  const page = pageSession(signIn);
  const { csrf, withUser, who } = page;

  app.get(
    '/',
    withUser(async (c, user) => c.html(homePage({ csrf: csrf(c), who: await who(user) }), 200, NO_STORE)),
  );
  mountSignInRoutes(app, signIn, page);
  mountSettingsRoutes(app, signIn, page);

  app.get(
    '/console',
    withUser(async (c, user) =>
      c.html(consolePage({ csrf: csrf(c), who: await who(user), roles: deps.roles?.() ?? [] }), 200, NO_STORE),
    ),
  );

  for (const extra of deps.pages ?? []) {
    app.get(
      extra.path,
      withUser(async (c, user) => {
        const param = (name: string) => c.req.param(name) ?? '';
        const answer = await extra.answer({ db: deps.db, user, param });
        return c.html(
          appPage({ csrf: csrf(c), title: answer.title, content: answer.content, who: await who(user) }),
          answer.status as 200,
          NO_STORE,
        );
      }),
    );
  }

  app.get('/assets/:file', (c) => serveAsset(c, c.req.param('file')));
  // The tab's icon; browsers also ask for /favicon.ico on their own.
  for (const icon of ['/favicon.svg', '/favicon.ico'])
    app.get(icon, (c) =>
      c.body(FAVICON, 200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' }),
    );
}
