"""The Discord layer: the bot, its cogs, the announcer, rendering glue and the error handler."""
