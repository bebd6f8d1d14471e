"""The tournament director: the use cases of an event (`api.Director`), sharing a `context.Context`."""
