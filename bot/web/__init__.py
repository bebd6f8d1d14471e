"""The bot's web endpoint (aiohttp): /link's pages (the member named before Lichess, the optional Discord sign-in,
the OAuth callback) and the event pages (`pages`).

`app.make_app` builds the application from route modules: each is a function that adds its routes (and may read
the director as `app[bot.web.keys.DIRECTOR]`). `oauth.oauth_routes(signin)` is one (`app.default_route_modules`),
the pages' `pages.site.page_routes(clubs)` another; `bot.assembly.build` passes both to the `WebServer` it makes.
Every response carries the security headers of `app.SECURITY_HEADERS` (docs/security.md).
"""
