"""``python -m autograder.service {start,stop,status} [--json]``: the warm grader, by hand.

``start`` starts it (it warms up in the background: ``make lab`` runs this first, so that the
first ``check()`` of the first lesson is warm), ``stop`` stops it, ``status`` says whether it runs:
its pid, since when, its idle timeout and the folder of its socket, in the current language.
``--json`` prints the grader's own answer instead (one object; ``null`` when none runs), for a
script. ``status`` exits 1 when no grader runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from autograder import i18n
from autograder.i18n import _, ngettext
from autograder.service import client


def duration(seconds: float) -> str:
    """``30 minutes``, ``45 seconds``, ``2 hours``: a span in the current language, rounded."""
    if seconds >= 7200:
        return ngettext("{n} hour", "{n} hours", round(seconds / 3600)).format(
            n=round(seconds / 3600)
        )
    if seconds >= 120:
        return ngettext("{n} minute", "{n} minutes", round(seconds / 60)).format(
            n=round(seconds / 60)
        )
    return ngettext("{n} second", "{n} seconds", round(seconds)).format(n=round(seconds))


def described(state: dict) -> str:
    """The grader's answer to ``status`` in plain words (a grader from before a field was added
    leaves it unsaid)."""
    lines = [_("The warm grader is running (pid {pid}).").format(pid=state.get("pid", "?"))]
    if state.get("started"):
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(state["started"]))
        ago = duration(time.time() - state["started"])
        lines.append(_("  running since {time} ({ago} ago)").format(time=since, ago=ago))
    if "workers" in state:
        lines.append(
            _("  workers: {workers} ({ready} ready, {busy} busy)").format(
                workers=state["workers"], ready=state.get("ready", 0), busy=state.get("busy", 0)
            )
        )
    if state.get("idle_timeout_s"):
        said = _("  it exits after {timeout} without a request").format(
            timeout=duration(state["idle_timeout_s"])
        )
        if state.get("idle_s") is not None and not state.get("busy"):
            said += _(" (idle for {idle} now)").format(idle=duration(state["idle_s"]))
        lines.append(said)
    if state.get("socket"):
        lines.append(_("  socket folder: {folder}").format(folder=Path(state["socket"]).parent))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    lang, argv = i18n.split_lang(sys.argv[1:] if argv is None else argv)
    with i18n.use(lang):
        parser = argparse.ArgumentParser(
            prog="python -m autograder.service",
            description=_("The warm grader, by hand: start it, stop it, or say whether it runs."),
        )
        parser.add_argument("action", choices=["start", "stop", "status"])
        parser.add_argument(
            "--json", action="store_true", help=_("print the grader's answer as one JSON object")
        )
        args = i18n.localise(parser).parse_args(argv)
        return _act(args.action, args.json)


def _act(action: str, as_json: bool) -> int:
    if action == "start":
        if not client.enabled():
            off = f"{client.ENV}=0"
            print(_("The warm grader is turned off here ({setting}).").format(setting=off))
            return 0
        try:
            client.connect().close()
        except (client.Unavailable, OSError) as e:
            print(_("The warm grader did not start: {problem}").format(problem=e), file=sys.stderr)
            return 1
    state = client.control("stop" if action == "stop" else "status")
    if as_json:
        print(json.dumps(state))
    elif state is None:
        print(_("The warm grader is not running."))
    elif action == "stop":
        print(_("The warm grader is stopping (pid {pid}).").format(pid=state.get("pid", "?")))
    else:
        print(described(state))
    return 1 if state is None and action == "status" else 0


if __name__ == "__main__":
    sys.exit(main())
