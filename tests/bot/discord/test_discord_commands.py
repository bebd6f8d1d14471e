"""Each slash command's callback on a fake interaction, over the real director, SQLite and the Lichess sandbox."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from discord import app_commands

from bot.director.models import Actor, JobKind
from bot.discord.actors import NotAnOrganiser
from bot.discord.cogs.member import event_autocomplete
from bot.discord.cogs.organiser import RESULT_CHOICES, OrganiserCog
from bot.rendering.text import MESSAGE_LIMIT
from bot.settings import DirectorSettings
from domain.event import EventStatus
from domain.settings import EventSettings
from sandbox.lichess.control import play_to
from tests.bot.discord.discord_fakes import (
    CHANNEL,
    GUILD,
    Env,
    FakeInteraction,
    find_command,
    invoke,
    make_env,
    member,
)


def _private_answer(interaction: FakeInteraction) -> str:
    """The one ephemeral answer of a deferred command (and check the deferral came first)."""
    first = interaction.calls[0]
    assert (first.via, first.method, first.ephemeral) == ("response", "defer", True)
    assert len(interaction.answers) == 1, interaction.calls
    answer = interaction.answers[0]
    assert answer.via == "followup" and answer.ephemeral
    return answer.content or ""


def _refusal(interaction: FakeInteraction) -> str:
    """A one-line private refusal (an error reported by the handler)."""
    answers = interaction.answers
    assert len(answers) == 1 and answers[0].ephemeral, interaction.calls
    text = answers[0].content or ""
    assert "\n" not in text and "Traceback" not in text
    return text


def _settings(name: str) -> EventSettings:
    return EventSettings(name=name, rounds=3)


def _choice(value: str) -> app_commands.Choice[str]:
    return next(c for c in RESULT_CHOICES if c.value == value)


async def _open_event(env: Env, name: str = "Spring Swiss", **options: object) -> int:
    start = (env.clock.now() + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")
    await env.run("swiss create", env.organiser, name=name, rounds=3, start=start, **options)
    await env.run("swiss open", env.organiser, event=name)
    (event,) = [e for e in await env.director.list_events(GUILD) if e.name == name]
    assert event.status is EventStatus.OPEN
    return event.id


async def test_link_gives_a_code_then_completes_when_the_bio_has_it(env: Env) -> None:
    env.sandbox.add_user("Alice", rating=1800)
    alice = member("alice#1")
    requests_before = len(env.sandbox.state.requests)
    started = await env.run("link", alice, username="Alice")
    text = _private_answer(started)
    code = re.search(r"`(swissbot-[0-9a-f]+)`", text)
    assert code, text
    assert len(env.sandbox.state.requests) > requests_before  # the username was checked on Lichess
    profile = f"{env.director.lichess_url}/account/profile"  # the Lichess the bot plays on, not lichess.org
    assert not profile.startswith("https://lichess.org") and profile in text and "lichess.org" not in text

    early = await env.run("link", alice)
    assert "is not in the bio" in _refusal(early) and profile in _refusal(early)

    env.sandbox.state.users["alice"].bio = f"Hi! {code.group(1)}"
    done = await env.run("link", alice)
    assert "you are **Alice** on Lichess" in _private_answer(done)
    linked = await env.director.linked_account(alice.id)
    assert linked is not None and linked.lichess_username == "Alice"


async def test_link_refuses_an_unknown_account_in_one_line(env: Env) -> None:
    reply = await env.run("link", member("bob"), username="nobody_here")
    assert reply.calls[0].method == "defer"
    assert _refusal(reply) == "No Lichess account is named 'nobody_here'."


async def test_join_needs_a_linked_account(env: Env) -> None:
    await _open_event(env)
    reply = await env.run("join", member("stranger"))
    assert _refusal(reply) == "Link your Lichess account first (/link)."


async def test_join_withdraw_and_bye(env: Env) -> None:
    event_id = await _open_event(env)
    carol = await env.linked("Carol", 1650)
    joined = await env.run("join", carol, event=str(event_id))
    assert _private_answer(joined) == "You are in **Spring Swiss** as Carol (1650)."
    assert [e.name for e in await env.director.entries(event_id)] == ["Carol"]

    again = await env.run("join", carol)  # the only open event is the default
    assert "already" in _refusal(again).lower()

    bye = await env.run("bye", carol, round=2)
    assert _private_answer(bye) == "You have a half-point bye in round 2 of **Spring Swiss**."

    left = await env.run("withdraw", carol)
    assert _private_answer(left) == "You have withdrawn from **Spring Swiss**."
    entries = await env.director.entries(event_id)
    assert entries[0].status.value == "withdrawn"


async def test_join_outside_the_rating_range_is_refused(env: Env) -> None:
    await _open_event(env, rating_max=1600)
    strong = await env.linked("Magnus", 2900)
    reply = await env.run("join", strong)
    assert "rating" in _refusal(reply).lower()


async def test_event_option_by_typed_name_and_unknown_name(env: Env) -> None:
    await _open_event(env, "Blitz Night")
    dave = await env.linked("Dave", 1500)
    assert "Blitz Night" in _private_answer(await env.run("join", dave, event="blitz night"))
    unknown = await env.run("withdraw", dave, event="Rapid Cup")
    assert _refusal(unknown) == "No event called 'Rapid Cup' here."


async def test_an_omitted_event_is_ambiguous_when_two_are_open(env: Env) -> None:
    await _open_event(env, "Blitz Night")
    await _open_event(env, "Rapid Cup")
    erin = await env.linked("Erin", 1500)
    reply = await env.run("join", erin)
    assert _refusal(reply).startswith("Several events are in progress (")


async def test_an_organisers_draft_does_not_hide_the_event_in_progress_from_members(env: Env) -> None:
    await _open_event(env, "Blitz Night")
    await env.run("swiss create", env.organiser, name="Next Month", rounds=3)
    erin = await env.linked("Erin", 1500)
    await env.run("join", erin)
    assert _private_answer(await env.run("standings", erin)).startswith("**Blitz Night — standings**")
    pairings = await env.run("pairings", erin)
    assert "Next Month" not in (pairings.answers[0].content or "")


async def test_autocomplete_offers_at_most_25_events_matching_the_text(env: Env) -> None:
    for index in range(30):
        await env.director.create_event(Actor(1, "org", True), GUILD, CHANNEL, _settings(f"Weekly {index:02d}"))
    await env.director.create_event(Actor(1, "org", True), GUILD, CHANNEL, _settings("Club Championship"))
    interaction = env.interaction(member("m"))
    assert await event_autocomplete(interaction, "") == []  # type: ignore[arg-type]  # drafts are hidden
    for event in await env.director.list_events(GUILD):
        await env.director.open_event(Actor(1, "org", True), event.id)
    choices = await event_autocomplete(interaction, "")  # type: ignore[arg-type]
    assert len(choices) == 25
    champ = await event_autocomplete(interaction, "champ")  # type: ignore[arg-type]
    assert [c.name for c in champ] == ["Club Championship (open)"]
    (championship,) = [e for e in await env.director.list_events(GUILD) if e.name == "Club Championship"]
    assert champ[0].value == str(championship.id)
    # Elsewhere (no guild) there is nothing to offer.
    assert await event_autocomplete(env.interaction(member("m"), guild_id=None), "") == []  # type: ignore[arg-type]


async def test_organiser_commands_refuse_a_member(env: Env) -> None:
    plain = member("plain")
    reply = await env.run("swiss create", plain, name="Sneaky", rounds=3)
    assert _refusal(reply) == "Only members with the organiser role (Arbiter) can do that."
    assert reply.calls[0].method == "send_message"  # refused before any work: no deferral needed
    assert await env.director.list_events(GUILD) == []
    # The group's check (run by the tree before any subcommand) refuses too, and lets the organiser in.
    cog = find_command(env.bot, "swiss create").binding
    assert isinstance(cog, OrganiserCog)
    with pytest.raises(NotAnOrganiser):
        await cog.interaction_check(env.interaction(plain))  # type: ignore[arg-type]
    assert await cog.interaction_check(env.interaction(env.organiser))  # type: ignore[arg-type]


async def test_organiser_role_of_another_server_does_not_count(env: Env) -> None:
    reply = await invoke(env.bot, "swiss create", env.interaction(env.organiser, guild_id=999), name="X", rounds=1)
    assert "no swissbot club" in _refusal(reply)


async def test_a_full_event_through_the_commands(env: Env) -> None:
    event_id = await _open_event(env, "Club Swiss", minutes=3.0, increment=2)
    players = [await env.linked(f"p{i}", 1900 - 50 * i) for i in range(5)]
    for user in players:
        await env.run("join", user)
    edited = await env.run("swiss edit", env.organiser, rounds=2)
    assert "2 rounds" in _private_answer(edited)

    started = await env.run("swiss start", env.organiser)
    assert "has started" in _private_answer(started)
    assert env.announcer.of("round_paired"), "round 1 was announced"

    pairings = await env.run("pairings", players[0])
    assert pairings.calls[0].method == "defer" and pairings.answers[0].ephemeral
    embed = pairings.answers[0].embeds[0]
    assert embed.title is not None and "round 1" in embed.title
    assert embed.description is not None and embed.description.count("[game](") == 2  # 5 players: 2 boards + bye
    assert "bye" in embed.description

    mine = [await env.run("mygame", user) for user in players]
    texts = [_private_answer(reply) for reply in mine]
    with_game = [t for t in texts if "you play" in t]
    assert len(with_game) == 4 and texts.count("You have no game right now.") == 1
    assert all(re.search(r"Your game: http://[^ ]+/\w{8}", t) for t in with_game)

    standings = await env.run("standings", players[0])
    table = _private_answer(standings)
    assert table.startswith("**Club Swiss — standings**\n```") and len(table) <= MESSAGE_LIMIT
    assert all(f"p{i}" in table for i in range(5))

    view = await env.director.pairings(event_id)
    board = view.boards[0]
    corrected = await env.run(
        "swiss result", env.organiser, round=1, board=board.number, result=_choice("1-0"), reason="agreed by both"
    )
    assert _private_answer(corrected).startswith(f"Round 1 board {board.number}: no result → 1-0.")
    assert (await env.director.pairings(event_id)).boards[0].result is not None

    exported = await env.run("swiss export", env.organiser, format="trf")
    answer = exported.answers[0]
    assert answer.ephemeral and answer.files and answer.files[0].filename == f"event-{event_id}.trf"

    finished = await env.run("swiss finish", env.organiser)
    assert "is finished" in _private_answer(finished)
    assert (await env.director.event(event_id)).status is EventStatus.FINISHED
    # Finished events stay reachable by name (e.g. for their standings).
    late = await env.run("standings", players[1], event="Club Swiss", crosstable=True)
    assert "crosstable" in _private_answer(late)


async def test_create_takes_the_configured_defaults_for_the_options_left_out(tmp_path: Path) -> None:
    settings = DirectorSettings(default_noshow_minutes=7.0, default_round_interval_minutes=12.0)
    async with make_env(tmp_path, settings=settings) as env:
        await env.run("swiss create", env.organiser, name="Defaults", rounds=3)
        await env.run("swiss create", env.organiser, name="Chosen", rounds=3, noshow=3.0, interval=20.0)
        await env.run("swiss create", env.organiser, name="Manual", rounds=3, schedule="manual")
        made = {e.name: e.settings for e in await env.director.list_events(GUILD)}
        assert (made["Defaults"].no_show_seconds, made["Defaults"].round_interval) == (7 * 60, 12 * 60)
        assert (made["Chosen"].no_show_seconds, made["Chosen"].round_interval) == (3 * 60, 20 * 60)
        assert (made["Manual"].no_show_seconds, made["Manual"].round_interval) == (7 * 60, None)

        await env.run("swiss edit", env.organiser, event="Manual", schedule="interval")
        (manual,) = [e for e in await env.director.list_events(GUILD) if e.name == "Manual"]
        assert manual.settings.round_interval == 12 * 60


@pytest.mark.parametrize("path", ["swiss create", "swiss edit"])
async def test_every_offered_early_draw_choice_is_a_policy_the_event_takes(env: Env, path: str) -> None:
    option = next(p for p in find_command(env.bot, path).parameters if p.name == "early_draw")
    offered = [choice.value for choice in option.choices]
    assert offered
    for value in offered:
        name = f"Draws {value}"
        if path == "swiss create":
            reply = await env.run(path, env.organiser, name=name, rounds=3, early_draw=value)
        else:
            await env.run("swiss create", env.organiser, name=name, rounds=3)
            reply = await env.run(path, env.organiser, event=name, early_draw=value)
        assert name in _private_answer(reply)
        made = {e.name: e.settings for e in await env.director.list_events(GUILD)}
        assert made[name].early_draw_policy.value == value


async def _reminders(env: Env, event_id: int) -> list[timedelta]:
    """How long before the start of the event's next round each due reminder job runs."""
    event = await env.director.event(event_id)
    assert event.next_round_at is not None
    jobs = await env.director.due_jobs()
    return [event.next_round_at - j.due_at for j in jobs if j.kind is JobKind.REMIND and j.event_id == event_id]


async def test_the_reminder_option_gives_the_event_its_own_lead_time(env: Env) -> None:
    default = await _open_event(env, "Default")
    assert await _reminders(env, default) == [timedelta(seconds=env.director.settings.reminder_before)]

    start = (env.clock.now() + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")
    created = await env.run("swiss create", env.organiser, name="Early", rounds=3, start=start, reminder=25.0)
    assert "reminder 25 min before each round" in _private_answer(created)
    await env.run("swiss open", env.organiser, event="Early")
    (early,) = [e for e in await env.director.list_events(GUILD) if e.name == "Early"]
    assert early.settings.reminder_seconds == 25 * 60
    assert await _reminders(env, early.id) == [timedelta(minutes=25)]

    edited = await env.run("swiss edit", env.organiser, event="Early", reminder=0.0)
    assert "no reminder" in _private_answer(edited)
    assert await _reminders(env, early.id) == []
    assert await _reminders(env, default) == [timedelta(seconds=env.director.settings.reminder_before)]


async def test_pause_resume_cancel_and_invalid_settings(env: Env) -> None:
    await _open_event(env, "Evening")
    assert "paused" in _private_answer(await env.run("swiss pause", env.organiser))
    assert "running again" in _private_answer(await env.run("swiss resume", env.organiser))
    bad = await env.run("swiss edit", env.organiser, start="next tuesday")
    assert _refusal(bad).startswith("'next tuesday' is not a time")
    nothing = await env.run("swiss edit", env.organiser)
    assert _refusal(nothing) == "Nothing to change: give at least one option."
    assert "cancelled" in _private_answer(await env.run("swiss cancel", env.organiser))
    gone = await env.run("join", await env.linked("Late", 1500))
    assert _refusal(gone) == "There is no event in progress here."


@pytest.mark.slow
async def test_standings_of_a_large_event_attach_the_whole_table(env: Env) -> None:
    event_id = await _open_event(env, "Big")
    for index in range(120):
        user = await env.linked(f"player_{index:03d}", 1000 + index)
        await env.run("join", user)
    reply = await env.run("standings", env.organiser, event=str(event_id))
    answer = reply.answers[0]
    assert len(answer.content or "") <= MESSAGE_LIMIT
    assert "the whole table is attached" in (answer.content or "")
    assert answer.files and answer.files[0].filename == "standings.txt"
    attached = answer.files[0].fp.read().decode()
    assert all(f"player_{i:03d}" in attached for i in range(120))


@pytest.mark.parametrize("path", ["join", "standings", "swiss open", "swiss export"])
async def test_autocomplete_is_wired_to_the_event_option(env: Env, path: str) -> None:
    """Through discord.py's own autocomplete dispatch (a private method, pinned discord.py)."""
    organiser = Actor(1, "org", True)
    spring = await env.director.create_event(organiser, GUILD, CHANNEL, _settings("Spring Swiss"))
    await env.director.create_event(organiser, GUILD, CHANNEL, _settings("Spring Draft"))
    await env.director.create_event(organiser, GUILD, CHANNEL, _settings("Autumn Open"))
    await env.director.open_event(organiser, spring.id)
    interaction = env.interaction(member("m"))
    command = find_command(env.bot, path)
    await command._invoke_autocomplete(interaction, "event", SimpleNamespace(event="spr"))  # type: ignore[arg-type]
    shown = [c.name for c in interaction.response.choices]
    # Members never see drafts; organisers do.
    assert shown == (
        ["Spring Swiss (open)", "Spring Draft (draft)"] if path.startswith("swiss") else ["Spring Swiss (open)"]
    )


async def test_every_offered_system_is_one_an_event_takes_and_double_needs_whole_matches(env: Env) -> None:
    option = next(p for p in find_command(env.bot, "swiss create").parameters if p.name == "system")
    offered = [choice.value for choice in option.choices]
    assert "double" in offered
    for value in offered:
        reply = await env.run("swiss create", env.organiser, name=f"System {value}", rounds=4, system=value)
        assert f"System {value}" in _private_answer(reply)
    made = {e.name: e.settings.system for e in await env.director.list_events(GUILD)}
    assert all(made[f"System {value}"] == value for value in offered)
    odd = await env.run("swiss create", env.organiser, name="Odd Double", rounds=3, system="double")
    assert "rounds count games and must be even (not 3)" in _refusal(odd)
    assert "Odd Double" not in {e.name for e in await env.director.list_events(GUILD)}


@pytest.mark.parametrize(
    ("options", "sentence"),
    [
        ({"schedule": "fixed"}, "schedule: fixed needs fixed-times, one start time a round (YYYY-MM-DD HH:MM UTC)."),
        (
            {"schedule": "manual", "interval": 10.0},
            "interval: 10 cannot apply with schedule: manual (drop one of them).",
        ),
        ({"boards": 6}, "boards: 6 applies only to a team event (system: team)."),
        (
            {"fixed_times": "2099-01-01 18:00, 2099-01-01 18:00"},
            "Invalid event settings: the fixed time 2099-01-01 18:00 UTC is given twice.",
        ),
    ],
)
async def test_settings_that_cannot_apply_are_refused_in_one_sentence(
    env: Env, options: dict[str, object], sentence: str
) -> None:
    reply = await env.run("swiss create", env.organiser, name="Odd", rounds=2, **options)
    assert sentence in _refusal(reply)
    assert not [e for e in await env.director.list_events(GUILD) if e.name == "Odd"]


async def test_a_start_in_the_past_is_refused_naming_it_and_the_time_now(env: Env) -> None:
    now = env.clock.now()
    past = now - timedelta(hours=2)
    reply = await env.run("swiss create", env.organiser, name="Late", rounds=2, start=f"{past:%Y-%m-%d %H:%M}")
    assert f"the start {past:%Y-%m-%d %H:%M} UTC is in the past (it is {now:%Y-%m-%d %H:%M} UTC now)." in _refusal(
        reply
    )


async def test_edit_rounds_that_ends_a_running_event_says_it_ended_it(env: Env) -> None:
    event_id = await _open_event(env, "Short Swiss")
    for i in range(4):
        await env.run("join", await env.linked(f"s{i}", 1900 - 50 * i))
    await env.run("swiss start", env.organiser, event="Short Swiss")
    for board in (await env.director.pairings(event_id)).boards:
        assert board.game_id is not None
        play_to(env.sandbox.state, env.sandbox.state.games[board.game_id], winner="white", status="resign", plies=40)
    await env.director.poll_round(event_id)
    edited = await env.run("swiss edit", env.organiser, event="Short Swiss", rounds=1)
    assert _private_answer(edited).endswith(
        "This ended the event: round 1 was its last; the final standings are posted."
    )
    assert (await env.director.event(event_id)).status is EventStatus.FINISHED


@pytest.mark.parametrize(("option", "value"), [("minutes", float("nan")), ("interval", float("inf"))])
async def test_a_non_finite_number_is_refused_not_a_crash(env: Env, option: str, value: float) -> None:
    reply = await env.run("swiss create", env.organiser, name="Odd", rounds=2, **{option: value})
    assert _refusal(reply) == f"{option}: {value} is not a number of minutes."


async def test_an_event_name_of_invisible_characters_is_refused(env: Env) -> None:
    reply = await env.run("swiss create", env.organiser, name="\u200b\u3164", rounds=2)
    assert _refusal(reply) == "Invalid event settings: the name has no visible character."


async def test_every_organiser_option_naming_a_player_takes_a_discord_mention(env: Env) -> None:
    event_id = await _open_event(env, "Mentions")
    members = [await env.linked(f"m{i}", 1900 - 50 * i) for i in range(4)]
    for user in members:
        await env.run("join", user)
    a, b, c, d = (f"<@{user.id}>" for user in members)
    assert "will not be paired" in _private_answer(await env.run("swiss forbid", env.organiser, player_a=a, player_b=b))
    assert "may be paired" in _private_answer(await env.run("swiss allow", env.organiser, player_a=a, player_b=b))
    await env.run("swiss remove", env.organiser, player=c)
    await env.run("swiss reinstate", env.organiser, player=c)
    await env.run("swiss disqualify", env.organiser, player=d, reason="fair play")
    entries = {e.discord_id: e.status.value for e in await env.director.entries(event_id)}
    assert [entries[user.id] for user in members] == ["active", "active", "active", "disqualified"]


async def test_pairings_before_the_start_and_standings_after_the_end_answer_with_the_event_that_makes_sense(
    env: Env,
) -> None:
    done_id = await _open_event(env, "Last Week")
    players = [await env.linked(f"w{i}", 1900 - 50 * i) for i in range(4)]
    for user in players:
        await env.run("join", user, event="Last Week")
    await env.run("swiss start", env.organiser, event="Last Week")
    await env.run("swiss finish", env.organiser, event="Last Week")
    assert (await env.director.event(done_id)).status is EventStatus.FINISHED
    next_id = await _open_event(env, "Next Week")
    start = (await env.director.event(next_id)).next_round_at
    assert start is not None

    standings = _private_answer(await env.run("standings", players[0]))
    assert standings.startswith("**Last Week — standings**")
    pairings = _private_answer(await env.run("pairings", players[0]))
    assert pairings == f"**Next Week** has not started: round 1 is paired at <t:{int(start.timestamp())}:f>."
