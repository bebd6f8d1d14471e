"""The bot's web endpoint (aiohttp): the OAuth callback of /link and the event pages (`pages`).

`app.make_app` builds the application from route modules: each is a function that adds its routes (and may read
the director as `app[bot.web.keys.DIRECTOR]`). `oauth.add_routes` is one (`app.default_route_modules`), the pages'
`pages.site.page_routes(clubs)` another; `bot.assembly.build` passes both to the `WebServer` it makes.
"""
