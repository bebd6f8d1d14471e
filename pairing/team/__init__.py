"""The FIDE Swiss Team Pairing System (C.04.6, 2026 text), after `../shared/reference/fide-other-systems.md` §6.

`model` holds a team event (the players' tournament plus the teams and the team rules), `matches` builds one and
writes its matches, `colours` the colour preferences, `engine` pairs a round (Art. 3) and allocates colours
(Art. 4), `trf` reads and writes the TRF team records, `check` checks and generates team events, and
`standings` ranks the teams. The modules are imported one by one (this package imports none of them).
"""
