"""Compare two `tilesched sim --json` results: is the first no slower than the second?

Usage: python cycles_at_most.py NEW.json HAND.json
Prints `ok: new yes, hand yes` (each program race-, deadlock- and violation-free) and
`new <= hand: yes` or `... no`, with both cycle counts for the reader (lit tests check the
verdict words only: they pin a relation, not the machine model's numbers).
"""

import json
import pathlib
import sys


def main(new_path: str, hand_path: str) -> int:
    new, hand = (json.loads(pathlib.Path(p).read_text()) for p in (new_path, hand_path))
    print(f"ok: new {'yes' if new['ok'] else 'no'}, hand {'yes' if hand['ok'] else 'no'}")
    verdict = "yes" if new["cycles"] <= hand["cycles"] else "no"
    print(f"new <= hand: {verdict} ({new['cycles']} vs {hand['cycles']} cycles)")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
