"""Every scenario in tests/scenarios runs to its end; a wrong expectation and a malformed file are reported."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.exit_codes import ExitCode
from bot.scenario.format import ScenarioError, load
from bot.scenario.runner import CHANNEL, GUILD, ExpectationFailed, booted, places, run_scenario
from tests.support.paths import ROOT

SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.toml"))
BASIC = ROOT / "tests" / "scenarios" / "basic-week.toml"
CASUAL_MEMBERS = '[[member]]\nname = "a"\n[[member]]\nname = "b"\n'


@pytest.mark.slow  # each file boots the real bot against the local Discord and Lichess
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
async def test_scenario_holds(path: Path) -> None:
    out = io.StringIO()
    await run_scenario(load(path), out)
    assert "expectations hold" in out.getvalue()


def test_a_wrong_expectation_exits_non_zero_naming_file_step_and_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = BASIC.read_text().replace(
        'board = { round = 1, board = 1, result = "1-0" }', 'board = { round = 1, board = 1, result = "0-1" }'
    )
    assert wrong != BASIC.read_text()
    path = tmp_path / "wrong.toml"
    path.write_text(wrong)
    line = next(n for n, text in enumerate(wrong.splitlines(), 1) if 'result = "0-1" }' in text) - 3
    assert main(["scenario", "--quiet", str(path)]) == ExitCode.FAILED
    err = capsys.readouterr().err
    assert f"{path}: step 5 (line {line})" in err
    assert "expected round 1 board 1 result 0-1; found 1-0" in err


def test_a_refusal_that_does_not_come_is_a_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = BASIC.read_text() + '\n[[step]]\ndo = "join"\nby = "alice"\nrefused = "already"\n'
    path = tmp_path / "join.toml"
    path.write_text(text.replace('reply = "Result: 1/2-1/2"', 'reply = "Result: 1-0"'))
    assert main(["scenario", "--quiet", str(path)]) == ExitCode.FAILED
    assert "expected the reply 'Result: 1-0'; found" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('[scenario]\nname = "x"\n\n[[step]]\ndo = "expect"\nevent = { status = 3 }\n', 4, "'status' must be str"),
        ('[scenario]\nname = "x"\n[[step]]\ndo = "jump"\n', 3, "unknown 'do = \"jump\"'"),
        ('[[step]]\ndo = "wait"\n\n[[step]]\nat = "+2 fortnights"\ndo = "wait"\n', 4, "is not a duration"),
        ('[[member]]\nname = "a"\nratin = 3\n', 1, "unknown key 'ratin'"),
        ('[scenario]\nname = "x"\nseed = \n', 3, "not valid TOML"),
        ('[director]\nlichess_pause = "soon"\n', 1, "lichess_pause"),
        ('[[step]]\ndo = "join"\n', 1, "'by' must name the member"),
        ("[director]\nlichess_pause = 0\n", 1, "lichess_pause' must be at least 60 seconds"),
        ("[director]\npoll_interval = 0\n", 1, "poll_interval' must be positive"),
        ('[scenario]\nlink = "email"\n', 1, "link must be one of oauth, bio"),
        # Commands and options as the bot's app-command tree has them (what Discord would offer):
        ('[[step]]\ndo = "fide"\n', 1, "'by' must name the member"),
        (
            '[[member]]\nname = "a"\n[[step]]\ndo = "join"\nby = "a"\noptions = { colour = "w" }\n',
            3,
            "unknown key 'colour'",
        ),
        ('[[step]]\ndo = "forbid"\noptions = { player-a = "a" }\n', 1, "missing option 'player_b'"),
        ('[[step]]\ndo = "create"\noptions = { name = "x", rounds = "five" }\n', 1, "'rounds' must be int"),
        ('[event]\nname = "x"\nrounds = 2\nmin-rated-games = "ten"\n', 1, "'min-rated-games' must be int"),
        ('[[member]]\nname = "a"\nlink = "code"\n', 1, "link must be one of oauth, bio"),
        ('[[step]]\ndo = "expect"\npings = [1]\n', 1, "pings: an array of member names"),
        # A casual game between two members, from the lobby:
        (f'{CASUAL_MEMBERS}[[step]]\ndo = "casual game"\nwhite = "a"\n', 5, "casual game needs 'black'"),
        (f'{CASUAL_MEMBERS}[[step]]\ndo = "casual game"\nwhite = "a"\nblack = "z"\n', 5, "'z' is no [[member]]"),
        (f'{CASUAL_MEMBERS}[[step]]\ndo = "casual game"\nwhite = "a"\nblack = "A"\n', 5, "two different players"),
        (
            f'{CASUAL_MEMBERS}[[step]]\ndo = "casual game"\nwhite = "a"\nblack = "b"\nclock = 3\n',
            5,
            "unknown key 'clock'",
        ),
        (
            f'{CASUAL_MEMBERS}[[step]]\ndo = "casual game"\nwhite = "a"\nblack = "b"\nresult = "2-0"\n',
            5,
            "result must be",
        ),
        (
            f'{CASUAL_MEMBERS}[[step]]\ndo = "casual game"\nwhite = "a"\nblack = "b"\nminutes = 0\n',
            5,
            "'minutes' must be",
        ),
        ('[[step]]\ndo = "expect"\nboard = { round = 1, board = 1, casual = "no" }\n', 1, "'casual' must be bool"),
    ],
)
def test_a_malformed_file_is_an_error_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as caught:
        load(path)
    assert message in str(caught.value)
    assert f"{path}:{line}" in str(caught.value) or f"line {line}" in str(caught.value)
    assert main(["scenario", str(path)]) == ExitCode.BAD_INPUT
    assert str(path) in capsys.readouterr().err


async def test_the_reply_a_scenario_checks_is_the_one_the_cog_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "mygame.toml"
    path.write_text(BASIC.read_text().replace('reply = "Result: 1/2-1/2"', 'reply = "the cog says so"'))
    with pytest.raises(ExpectationFailed, match="expected the reply 'the cog says so'; found"):
        await run_scenario(load(path), io.StringIO())
    monkeypatch.setattr("bot.discord.cogs.member.my_game_text", lambda game: f"{game.event.name}: the cog says so")
    out = io.StringIO()
    await run_scenario(load(path), out)
    assert "bob: /mygame → Monday Blitz: the cog says so" in out.getvalue()


def test_a_play_before_any_round_is_paired_is_a_step_error_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "early.toml"
    path.write_text(
        '[scenario]\nname = "early"\n\n[event]\nname = "Early"\nrounds = 2\n\n[[member]]\nname = "alice"\n\n'
        '[[step]]\ndo = "play"\nboard = 1\nresult = "1-0"\n'
    )
    assert main(["scenario", "--quiet", str(path)]) == ExitCode.FAILED
    err = capsys.readouterr().err
    assert f"{path}: step 1 (line 11), play: cannot run: " in err
    assert "Traceback" not in err


def test_every_file_is_run_and_reported_after_a_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(BASIC.read_text().replace('reply = "Result: 1/2-1/2"', 'reply = "Result: 1-0"'))
    unreadable = tmp_path / "unreadable.toml"
    unreadable.write_text('[[step]]\ndo = "jump"\n')
    right = ROOT / "tests" / "scenarios" / "interval-zero-refused.toml"
    assert main(["scenario", "--quiet", str(wrong), str(unreadable), str(right)]) == ExitCode.FAILED
    captured = capsys.readouterr()
    assert f"FAILED {wrong}" in captured.err and str(unreadable) in captured.err
    assert f"ok {right}" in captured.out
    assert "1 of 3 scenario(s) held; 1 failed, 1 unreadable" in captured.err


@pytest.mark.parametrize("link", ["oauth", "bio"])
async def test_members_link_through_oauth_by_default_and_their_rounds_are_bulk_pairings(
    tmp_path: Path, link: str
) -> None:
    path = tmp_path / "week.toml"
    path.write_text(BASIC.read_text().replace("[scenario]\n", f'[scenario]\nlink = "{link}"\n', 1))
    async with booted(load(path), io.StringIO(), tmp_path) as run:
        await run.run()
        bulks = len(run.sandbox.state.bulks)
        streamed = list(run.app.feeder.finished) if run.app.feeder is not None else []
        linked = await run.director.linked_account(10_001)
    assert linked is not None and linked.lichess_username == "alice"
    assert bulks == (2 if link == "oauth" else 0)  # one bulk pairing a round, or open challenges
    assert len(streamed) == 4  # every game's end came through the game stream


@pytest.mark.parametrize(
    ("expectation", "message"),
    [
        ('pings = ["alice", "bob", "carol", "dave"]', "expected pings of ['alice', 'bob', 'carol']; found"),
        ('files = ["standings.png"', "expected files ['final.pdf'] in the channel"),
    ],
)
async def test_pings_and_files_are_read_on_the_local_discord(tmp_path: Path, expectation: str, message: str) -> None:
    text = BASIC.read_text()
    wrong = text.replace(
        expectation,
        'pings = ["alice", "bob", "carol"]' if expectation.startswith("pings") else 'files = ["final.pdf"',
    )
    assert wrong != text
    path = tmp_path / "wrong.toml"
    path.write_text(wrong)
    with pytest.raises(ExpectationFailed, match=message.replace("[", r"\[").replace("]", r"\]")):
        await run_scenario(load(path), io.StringIO())


TWO_CLUBS = ROOT / "tests" / "scenarios" / "two-clubs-one-bot.toml"


@pytest.mark.slow  # the two clubs' week through the real bot
async def test_two_clubs_are_two_servers_of_one_bot_each_on_its_own_lichess_account(tmp_path: Path) -> None:
    async with booted(load(TWO_CLUBS), io.StringIO(), tmp_path) as run:
        await run.run()
        north, river = run.places
        config_guilds = [club.guild_id for club in run.bot.config.clubs]
        guilds = {e.name: e.guild_id for e in await run.all_events()}
        by = {bulk.by for bulk in run.sandbox.state.bulks.values()}
        river_bulks = [b for b in run.sandbox.state.bulks.values() if b.by == river.lichess_account]
    assert config_guilds == [north.guild, river.guild]  # one config, one SwissBot, both clubs
    assert guilds == {"Tuesday Blitz": north.guild, "Thursday Rapid": river.guild}
    assert by == {run.sandbox.bot_username.lower(), river.lichess_account}  # Riverside's rounds on its own account
    assert len(river_bulks) == 2


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('[[club]]\nname = "A"\nchanel = "x"\n', 1, "unknown key 'chanel'"),
        ('[[club]]\nname = "A"\n[[club]]\nname = "a"\n', 3, "club 'a' appears twice"),
        ('[[club]]\nname = "A"\n[[member]]\nname = "x"\nclubs = ["B"]\n', 3, "clubs: 'B' is no [[club]]"),
        ('[[club]]\nname = "A"\n[event]\nclub = "B"\nname = "x"\nrounds = 2\n', 3, "club 'B' is no [[club]]"),
        ('[[club]]\nname = "A"\n[[step]]\ndo = "expect"\nclub = "B"\nposted = "x"\n', 3, "club 'B' is no [[club]]"),
    ],
)
def test_a_club_a_file_names_must_be_declared(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "clubs.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=re.escape(f"{path}:{line}: ")) as caught:
        load(path)
    assert message in str(caught.value)


def test_a_file_without_clubs_has_the_one_club_it_always_had(tmp_path: Path) -> None:
    scenario = load(BASIC)
    assert [c.name for c in scenario.clubs] == ["scenario club"]
    assert [(p.guild, p.channel) for p in places(scenario.clubs)] == [(GUILD, CHANNEL)]


async def test_what_posted_reads_is_what_the_bots_discord_announcer_posted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "week.toml"
    path.write_text(BASIC.read_text())
    monkeypatch.setattr(
        "bot.rendering.text.standings_title",
        lambda event, *, final: f"{event.name} — the table, {'final' if final else f'round {event.current_round}'}",
    )
    with pytest.raises(ExpectationFailed, match="expected a post containing 'standings after round 1'; found 0"):
        await run_scenario(load(path), io.StringIO())
    path.write_text(BASIC.read_text().replace('posted = "standings after round 1"', 'posted = "the table, round 1"'))
    out = io.StringIO()
    await run_scenario(load(path), out)
    assert "Monday Blitz — the table, round 1" in out.getvalue()


async def test_a_casual_game_is_a_lobby_game_of_the_two_members_on_the_clock_played_to_its_result(
    tmp_path: Path,
) -> None:
    path = tmp_path / "casual.toml"
    path.write_text(
        '[event]\nname = "Blitz"\nrounds = 1\nminutes = 5\nincrement = 3\nstart = "2026-03-02 12:00"\n\n'
        '[[member]]\nname = "alice"\n[[member]]\nname = "bob"\n\n'
        '[[step]]\nat = "2026-03-02 10:00"\ndo = "casual game"\nwhite = "bob"\nblack = "alice"\nresult = "0-1"\n\n'
        '[[step]]\ndo = "casual game"\nwhite = "alice"\nblack = "bob"\nminutes = 1\nincrement = 0\nrated = true\n'
    )
    out = io.StringIO()
    async with booted(load(path), out, tmp_path) as run:
        await run.run()
        games = [g for g in run.sandbox.state.games.values() if g.id in run.casual]
    assert [(g.white, g.black, g.clock_limit, g.clock_increment, g.rated, g.source) for g in games] == [
        ("bob", "alice", 300, 3, False, "lobby"),  # the [event]'s clock by default
        ("alice", "bob", 60, 0, True, "lobby"),
    ]
    assert (games[0].status, games[0].winner) == ("resign", "black")
    assert games[1].status == "started" and not games[1].moves  # no result: begun, nobody moved
    assert "alice and bob start a casual game 1+0 from the lobby" in out.getvalue()


async def test_a_board_whose_game_is_a_casual_one_fails_the_casual_expectation(tmp_path: Path) -> None:
    lost = ROOT / "tests" / "scenarios" / "lost-create-made-again-told-once.toml"
    path = tmp_path / "wrong.toml"
    path.write_text(lost.read_text().replace("game = true, casual = false", "game = true, casual = true"))
    with pytest.raises(ExpectationFailed, match=r"expected the board's game one of the casual games \['\w+'\]; found"):
        await run_scenario(load(path), io.StringIO())


@pytest.mark.parametrize("name", ["storage-trouble-inside-pairing", "storage-trouble-inside-bulk-pairing"])
async def test_storage_trouble_after_a_create_starts_on_a_clubs_own_lichess_account_too(
    tmp_path: Path, name: str
) -> None:
    text = (ROOT / "tests" / "scenarios" / f"{name}.toml").read_text()
    own = text.replace("[director]", '[[club]]\nname = "Riverside Chess"\nown_lichess = true\n\n[director]', 1)
    path = tmp_path / "own.toml"
    path.write_text(own)
    out = io.StringIO()
    async with booted(load(path), out, tmp_path) as run:
        await run.run()  # the board has no game while the disk is full, then its game is adopted, not made twice
        account = run.places[0].lichess_account
        games = list(run.sandbox.state.games.values())
        bulks = list(run.sandbox.state.bulks.values())
    assert len(games) == 1
    if "bulk" in name:
        assert [b.by for b in bulks] == [account]
    else:
        assert games[0].creator == account
    assert "the database is full" in out.getvalue()


@pytest.mark.slow  # the two clubs' week through the real bot
async def test_posted_with_a_club_reads_that_clubs_channel_and_the_dms_about_its_events(tmp_path: Path) -> None:
    steps = (
        '\n[[step]]\ndo = "expect"\nclub = "Riverside Chess"\nposted = "[dm alice] Thursday Rapid round 1: you play"\n'
        'not_posted = "[dm alice] Tuesday Blitz"\n'
        '\n[[step]]\ndo = "expect"\nclub = "Riverside Chess"\nposted = "[dm dave] The Lichess account dave"\n'
        'not_posted = "[dm bob]"\n'
        '\n[[step]]\ndo = "expect"\nclub = "Northside Chess"\nposted = "[dm alice] Tuesday Blitz round 1: you play"\n'
        'not_posted = "[dm dave]"\n'
        '\n[[step]]\ndo = "expect"\nclub = "Northside Chess"\nposted = "[dm alice] The Lichess account alice"\n'
    )
    path = tmp_path / "dms.toml"
    path.write_text(TWO_CLUBS.read_text() + steps)
    out = io.StringIO()
    await run_scenario(load(path), out)
    assert out.getvalue().count("expectations hold") == TWO_CLUBS.read_text().count('do = "expect"') + 4
