"""Standings: `ranking` ranks by points and the ordered tie-breaks, per still-tied subgroup, and draws the text
tables; `crosstable` is the crosstable. The modules are imported one by one (this package imports none)."""
