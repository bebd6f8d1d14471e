"""FIDE C.07 tie-breaks (2026 and 2024 editions): `calculator` computes the individual tie-breaks, `codes` reads
their TRF26 codes and modifiers, `unplayed` is Article 16 for unplayed rounds, `encounter` the direct encounter,
`rating_tables` FIDE's rating-difference tables. The modules are imported one by one (this package imports none)."""
