"""The application: Discord, Lichess, scheduler, tournament director, CLI."""
