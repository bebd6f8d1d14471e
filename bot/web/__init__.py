"""The bot's web endpoint (aiohttp): the OAuth callback of /link, and later the event pages.

`app.make_app` builds the application from route modules: each is a function that adds its routes (and
may read the director as `app[bot.web.keys.DIRECTOR]`). `oauth.add_routes` is the first; another module adds its own
pages by being listed in `ROUTE_MODULES` (or passed to `make_app`).
"""
