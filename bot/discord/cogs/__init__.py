"""The command groups: member commands and the organisers' /swiss group."""
