"""The `flotilla` command: thin wrappers that start components and call the API."""
