"""A local Lichess: the endpoints the bot uses, simulated players, and fault injection."""

from sandbox.lichess.server import Sandbox, make_app, run_sandbox
from sandbox.lichess.state import BOT_TOKEN, BOT_USERNAME, SandboxState

__all__ = ["BOT_TOKEN", "BOT_USERNAME", "Sandbox", "SandboxState", "make_app", "run_sandbox"]
