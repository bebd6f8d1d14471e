"""The console's words for what the local Discord holds: what `posted` and `not_posted` match."""

from __future__ import annotations

from typing import Any

from bot.scenario.channel import console_text, posted_with_the_end, versions

NAMES = {10001: "alice", 10002: "bob"}


def round_message(title: str, lines: list[str]) -> dict[str, Any]:
    """A round's message as the local Discord's control API shows one version of it."""
    content = "Round 1 of **Night** is paired: <@10001> <@10002>"
    return {"content": content, "embeds": [{"title": title, "description": "\n".join(lines)}], "attachments": []}


def test_a_rounds_post_is_its_pairings_and_each_edit_its_results_in_the_consoles_columns() -> None:
    post = round_message("Night — round 1 (0/1 results)", ["`  1` alice (1900) **…** bob (1800) · [game](http://x/g1)"])
    edit = round_message(
        "Night — round 1 (complete)",
        [
            "`  1` alice (1900) **½-½** bob (1800) · [game](http://x/g1) · Knights v Rooks, board 1",
            "`  -` carol bye (½)",
        ],
    )
    assert console_text(post, 0, NAMES).splitlines() == [
        "Round 1 of Night is paired: @alice @bob",
        "Night — round 1 pairings",
        "    1. alice                    …     bob                   http://x/g1",
    ]
    assert console_text(edit, 1, NAMES).splitlines() == [
        "Night — round 1 results",
        "    1. alice                 1/2-1/2  bob                   (Knights v Rooks, board 1)",
        "       carol                bye (½)",
    ]


def test_notices_bulletins_the_end_the_card_and_dms_read_as_the_console_printed_them() -> None:
    def text(content: str = "", **extra: Any) -> str:
        return console_text({"content": content, "embeds": extra.get("embeds", [])}, 0, NAMES, extra.get("dm"))

    assert text("🛠️ **Night** (organisers): board 2 is held") == "[organiser] Night: board 2 is held"
    assert (
        text("📢 **Night**: team standings after round 1\n1. A: 2 MP")
        == "Night: team standings after round 1\n1. A: 2 MP"
    )
    assert text("**Night** is over: all 2 rounds played") == "Night finished: all 2 rounds played"
    card = {"title": "Night — open for entries", "description": "2 rounds, 3+2 (blitz)\n\nClick **Join**"}
    assert text(embeds=[card]) == "Night: open for entries (2 rounds, 3+2 (blitz))"
    assert text("Night: round 1 starts at 19:00 UTC.", dm="alice") == "[dm alice] Night: round 1 starts at 19:00 UTC."


def test_the_final_standings_an_end_posts_with_it_are_part_of_the_end_and_an_edit_of_them_is_not() -> None:
    final = {"id": "7", "content": "", "embeds": [{"title": "Night — final standings"}], "edits": []}
    end = {"id": "8", "content": "**Night** is over: all 2 rounds played", "embeds": [], "edits": []}
    other = {"id": "9", "content": "**Day** is over: cancelled", "embeds": [], "edits": []}
    assert posted_with_the_end([final, end, other]) == {"7": "8"}
    assert posted_with_the_end([final, other]) == {}
    edited = dict(final, edits=[{"content": "", "embeds": [{"title": "Night — final standings"}]}])
    assert len(versions(edited)) == 2 and versions(edited)[-1] is edited
