"""``python -m autograder.service {start,stop,status}``: the warm grader, by hand.

``start`` starts it (it warms up in the background: ``make lab`` runs this first, so that the
first ``check()`` of the first lesson is warm), ``stop`` stops it, ``status`` says whether it runs.
"""

from __future__ import annotations

import argparse
import json
import sys

from autograder.service import client


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.service", description=__doc__)
    parser.add_argument("action", choices=["start", "stop", "status"])
    args = parser.parse_args(argv)
    if args.action == "start":
        if not client.enabled():
            print(f"the warm grader is turned off here ({client.ENV}=0)")
            return 0
        try:
            client.connect().close()
        except (client.Unavailable, OSError) as e:
            print(f"the warm grader did not start: {e}", file=sys.stderr)
            return 1
    state = client.control("stop" if args.action == "stop" else "status")
    if state is None:
        print("the warm grader is not running")
        return 0 if args.action != "status" else 1
    print(("stopping: " if args.action == "stop" else "running: ") + json.dumps(state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
