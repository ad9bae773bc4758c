import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
:root { --ink:#1f2430; --muted:#6b7280; --line:#e5e7eb; --bg:#f7f8fa; --accent:#2563eb; --danger:#dc2626; --warn-bg:#fff7e6; --warn:#b45309; }
* { box-sizing: border-box; }
[hidden] { display:none !important; }
body { margin:0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--ink); background:var(--bg); }
a { color: var(--accent); }
.center { min-height:100vh; display:flex; align-items:center; justify-content:center; }
.card { background:#fff; border:1px solid var(--line); border-radius:10px; padding:28px; width:360px; box-shadow:0 1px 2px rgba(0,0,0,.04); }
h1 { font-size:20px; margin:0 0 18px; } h2 { font-size:16px; margin:0 0 12px; }
label { display:block; font-weight:600; margin:12px 0 4px; }
input[type=text], input[type=email], input[type=password] { width:100%; padding:8px 10px; border:1px solid var(--line); border-radius:6px; font:inherit; }
button, .button { display:inline-block; padding:8px 14px; border-radius:6px; border:1px solid var(--accent); background:var(--accent); color:#fff; font:inherit; cursor:pointer; text-decoration:none; }
button.secondary, .button.secondary { background:#fff; color:var(--ink); border-color:var(--line); }
button.danger { background:var(--danger); border-color:var(--danger); }
button.icon { background:none; border:none; color:var(--muted); padding:4px 6px; }
button.icon:hover { color:var(--danger); }
.full { width:100%; margin-top:18px; }
.error { color:var(--danger); margin-top:12px; }
.divider { text-align:center; color:var(--muted); margin:16px 0 0; }
.shell { display:flex; min-height:100vh; }
.sidebar { width:64px; background:#111827; color:#cbd5e1; display:flex; flex-direction:column; align-items:center; padding:14px 0; }
.sidebar a { color:#cbd5e1; display:block; padding:10px; border-radius:8px; }
.sidebar a:hover, .sidebar a.active { background:#1f2937; color:#fff; }
.sidebar .bottom { margin-top:auto; }
.main { flex:1; padding:32px; }
.overlay { position:fixed; top:0; right:0; bottom:0; left:64px; background:rgba(17,24,39,.35); display:flex; align-items:flex-start; justify-content:center; padding:8vh 0 4vh; overflow-y:auto; }
.dialog { background:#fff; border-radius:12px; width:720px; max-width:95vw; display:flex; overflow:hidden; box-shadow:0 10px 30px rgba(0,0,0,.2); }
.dialog nav { width:170px; border-right:1px solid var(--line); padding:18px 10px; background:#fafafa; }
.dialog nav a { display:block; padding:7px 10px; border-radius:6px; color:var(--ink); text-decoration:none; }
.dialog nav a.active { background:#e8efff; color:var(--accent); font-weight:600; }
.dialog section { flex:1; padding:22px 24px; }
.dialog header { display:flex; justify-content:space-between; align-items:center; margin-bottom:12px; }
table { width:100%; border-collapse:collapse; margin-top:12px; }
th, td { text-align:left; padding:8px 6px; border-bottom:1px solid var(--line); }
th { color:var(--muted); font-weight:600; font-size:12px; text-transform:uppercase; letter-spacing:.03em; }
.secret { display:flex; gap:8px; margin:10px 0; }
.secret code { flex:1; padding:8px 10px; background:#f3f4f6; border-radius:6px; word-break:break-all; font-size:13px; }
.warning { background:var(--warn-bg); color:var(--warn); border:1px solid #fde68a; padding:10px 12px; border-radius:6px; }
.muted { color:var(--muted); }
.row { display:flex; gap:8px; align-items:flex-end; }
.row > div { flex:1; }
.buttons { display:flex; gap:8px; flex:0 0 auto !important; }
.notice { color:#166534; background:#f0fdf4; border:1px solid #bbf7d0; padding:8px 12px; border-radius:6px; margin-top:12px; }
.topbar { display:flex; justify-content:flex-end; color:var(--muted); margin:-16px 0 12px; font-size:13px; }
.nav-title { padding:0 10px 8px; font-weight:600; }
.dialog nav a.close { margin-top:16px; }
.table-wrap { overflow-x:auto; }
td.date { white-space:nowrap; }
select { padding:7px 8px; border:1px solid var(--line); border-radius:6px; font:inherit; width:100%; background:#fff; }
button.small { padding:4px 10px; font-size:13px; }
.console { display:flex; flex-direction:column; height:calc(100vh - 64px); }
.console-bar { display:flex; flex-wrap:wrap; align-items:center; gap:8px 14px; padding:0 0 10px; position:relative; }
.console-bar details { margin-left:auto; }
.console-bar summary { cursor:pointer; color:var(--accent); }
.admin-form { position:absolute; right:0; top:30px; z-index:20; background:#fff; border:1px solid var(--line); border-radius:8px; padding:14px; width:320px; max-width:calc(100vw - 24px); box-shadow:0 10px 30px rgba(0,0,0,.15); }
#graphiql { flex:1; min-height:0; border:1px solid var(--line); border-radius:8px; overflow:hidden; }
/* One settings gear: the sidebar's (User Settings). */
.graphiql-container .graphiql-sidebar button[data-value="settings"] { display:none !important; }
@media (max-width: 700px) {
  .shell { flex-direction:column; }
  .sidebar { width:100%; flex-direction:row; padding:6px 10px; position:sticky; top:0; z-index:30; }
  .sidebar .bottom { margin-top:0; margin-left:auto; display:flex; align-items:center; }
  .main { padding:16px 12px; min-width:0; }
  .topbar { margin:0 0 8px; justify-content:flex-start; }
  h1 { font-size:18px; }
  .card { width:auto; max-width:calc(100vw - 24px); padding:20px; }
  .overlay { left:0; top:54px; padding:0; align-items:stretch; }
  .dialog { width:100%; max-width:100vw; border-radius:0; flex-direction:column; overflow:auto; }
  .dialog nav { width:auto; display:flex; gap:4px; align-items:center; border-right:none; border-bottom:1px solid var(--line); padding:8px; }
  .dialog nav .nav-title { display:none; }
  .dialog nav a.close { margin:0 0 0 auto; }
  .dialog section { padding:16px 12px; }
  .dialog header { flex-wrap:wrap; gap:8px; }
  .row { flex-wrap:wrap; }
  .console { height:calc(100vh - 54px - 32px); }
  .console-bar details { margin-left:0; }
  .admin-form { left:0; right:auto; }
  /* GraphiQL on a phone: the response under the editor rather than beside it. */
  .graphiql-container .graphiql-sidebar { padding:8px 4px; width:auto; }
  .graphiql-container .graphiql-sessions { margin:8px 8px 8px 0; min-width:0; }
  .graphiql-container .graphiql-session { flex-direction:column; padding:0; }
  .graphiql-container .graphiql-session > .graphiql-horizontal-drag-bar { display:none; }
  .graphiql-container .graphiql-session > div:not(.graphiql-horizontal-drag-bar) { flex:1 1 50% !important; min-height:0; min-width:0; display:flex !important; }
  .graphiql-container .graphiql-session > div:last-child { margin-top:8px; }
  .graphiql-container .graphiql-session-header { padding:0 4px; }
  .graphiql-container .graphiql-logo { display:none; }
  /* One pane at a time: an open plugin (the Explorer, the Docs) takes the width; closing it shows the editor. */
  .graphiql-container .graphiql-main:has(> .graphiql-horizontal-drag-bar) > .graphiql-sessions,
  .graphiql-container .graphiql-main > .graphiql-horizontal-drag-bar { display:none !important; }
  .graphiql-container .graphiql-main > div:has(> .graphiql-plugin) { flex:1 1 auto !important; min-width:0 !important; }
}
`;

/** The tab's icon: the console's prompt in the sidebar's colours. */
export const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#111827"/><path d="M8 10l6 6-6 6" fill="none" stroke="#60a5fa" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/><path d="M16 23h8" stroke="#e5e7eb" stroke-width="3" stroke-linecap="round"/></svg>';

export function page(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
<style>${raw(STYLE)}</style>
</head>
<body>${body}</body>
</html>`;
}

/** Icons drawn inline (no network for assets). */
export const ICONS = {
  gear: raw(
    '<svg width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><circle cx="12" cy="12" r="3"/><path d="M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z"/></svg>',
  ),
  console: raw(
    '<svg width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><polyline points="4 17 10 11 4 5"/><line x1="12" y1="19" x2="20" y2="19"/></svg>',
  ),
  trash: raw(
    '<svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><polyline points="3 6 5 6 21 6"/><path d="M19 6l-1 14a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2L5 6"/><path d="M10 11v6M14 11v6"/><path d="M9 6V4a1 1 0 0 1 1-1h4a1 1 0 0 1 1 1v2"/></svg>',
  ),
  signout: raw(
    '<svg width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4"/><polyline points="16 17 21 12 16 7"/><line x1="21" y1="12" x2="9" y2="12"/></svg>',
  ),
};
