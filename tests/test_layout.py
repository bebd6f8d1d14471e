"""The layout holds: no import circle, each layer imports only what it may, and the lean commands stay lean."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.data import corpus
from tests.support.paths import ROOT

PACKAGES = ("bot", "domain", "pairing", "storage", "sandbox")
HEAVY = ("discord", "aiohttp", "berserk", "PIL", "requests")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every module `name` imports, at any level (also under TYPE_CHECKING and inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield full if full in known else base


def graph() -> dict[str, set[str]]:
    modules = project_modules()
    known = set(modules)
    return {name: {m for m in imports_of(name, path, known) if m in known} for name, path in modules.items()}


def test_no_import_circle_among_the_project_modules() -> None:
    edges = graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                circle = [*stack[stack.index(nxt) :], nxt]
                pytest.fail("import circle: " + " -> ".join(circle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)


@pytest.mark.parametrize("package", ["pairing.systems", "pairing.team", "pairing.tiebreaks", "pairing.standings"])
def test_the_pairing_sub_packages_load_none_of_their_modules(package: str) -> None:
    """Their `__init__`s stay light: importing one loads none of its modules (`pairing.systems` imports an engine
    only when one is asked for)."""
    probe = f"import sys, {package}; print(sorted(m for m in sys.modules if m.startswith('{package}.')))"
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]", loaded.stdout


def all_imports(package: str) -> set[str]:
    modules = project_modules()
    found: set[str] = set()
    for name, path in modules.items():
        if name == package or name.startswith(package + "."):
            found |= set(imports_of(name, path, set(modules)))
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("pairing", ("bot", "domain", "storage", "sandbox", "tests", *HEAVY, "aiosqlite", "chess")),
        ("storage", ("bot", "sandbox", "tests", *HEAVY)),
        ("domain", ("bot", "storage", "sandbox", "tests", *HEAVY, "aiosqlite", "chess")),
        ("sandbox", ("bot", "domain", "storage", "pairing", "tests")),
        ("bot", ("tests", "pytest", "pytest_asyncio", "hypothesis")),
        ("bot.director.outcome", ("berserk", "requests", "discord", "aiohttp")),
        ("bot.lichess.payloads", ("berserk", "requests")),
    ],
)
def test_each_layer_imports_only_what_it_may(package: str, forbidden: tuple[str, ...]) -> None:
    bad = sorted(m for m in all_imports(package) if m.split(".")[0] in forbidden)
    assert not bad, f"{package} imports {bad}"


def test_domain_imports_only_pairing_and_the_standard_library() -> None:
    allowed = {"domain", "pairing", "__future__", *sys.stdlib_module_names}
    bad = sorted(m for m in all_imports("domain") if m.split(".")[0] not in allowed)
    assert not bad, f"domain imports {bad}"


def imported_at_runtime(*args: str) -> set[str]:
    """The top-level modules a `python -X importtime -m bot.cli ARGS` process imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot.cli", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.split("|")[-1] for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {line.strip().split(".")[0] for line in lines}


def test_pair_and_check_import_no_discord_aiohttp_berserk_or_pillow() -> None:
    trf = str(corpus() / "dutch" / "0001.trf")
    for command in (["pair", trf], ["check", trf]):
        loaded = imported_at_runtime(*command)
        assert "pairing" in loaded
        assert not loaded & set(HEAVY), f"swissbot {command[0]} imported {sorted(loaded & set(HEAVY))}"


def test_the_outcome_rule_imports_neither_berserk_nor_requests_when_run() -> None:
    code = "import sys, bot.director.outcome; print(sorted({m.split('.')[0] for m in sys.modules}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "'chess'" in done.stdout
    assert "'berserk'" not in done.stdout and "'requests'" not in done.stdout
