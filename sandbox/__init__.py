"""Local counterparts of the services the bot talks to, speaking their real APIs; nothing here imports the bot."""
