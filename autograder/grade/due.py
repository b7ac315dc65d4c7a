"""Due dates as ``grade`` reads them: ``--due [ASSIGNMENT=]DATE`` and ``c.Autograder.due_dates``.

Light on purpose (no torch, no sandbox): the command line reads them before any grading starts,
so that a bad date or an unknown assignment is refused at once.

A date is read as nbgrader reads one (``nbgrader db assignment add --duedate``): dateutil's
formats ("2026-12-01 17:00:00 UTC", "Dec 1 2026", ISO 8601), or nbgrader's "DATE TIME ZONE" with
a zone name ("2026-11-24 12:00:00 Europe/Paris"); without a zone it is UTC. Dates are returned
as naive UTC datetimes, as nbgrader stores them; the zone a date was given in, as written
(``zone_of``: "Asia/Shanghai", "+0800"), is kept beside it to show its times in (``local``).
"""

from __future__ import annotations

import difflib
import re
import warnings
from datetime import datetime, timedelta, timezone

from autograder.grade import RELEASE
from autograder.i18n import N_, _

# TRANSLATORS: examples of due dates, as a reader of this language would write them (their zone
# a name of the IANA database or an offset, never an abbreviation such as CST)
EXAMPLES = N_("'2026-12-01 23:59:00 UTC' or 'Dec 1 2026 23:59'")
# TRANSLATORS: an example of a name of the IANA time-zone database, the reader's own region's
ZONE_EXAMPLE = N_("Europe/Paris")
# TRANSLATORS: an example of a UTC offset, the reader's own region's (+0800 for China)
OFFSET_EXAMPLE = N_("+0100")


class DueError(ValueError):
    """A due date that cannot be read, or given for an assignment the course does not have."""


def parse_due(text: str) -> datetime:
    """A due date (see the module's docstring), in UTC, without a time zone."""
    from dateutil import parser

    text = str(text).strip()
    _no_posix_offset(text)
    when = why = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", parser.UnknownTimezoneWarning)  # "EST": not a guess
            when = parser.parse(text)
    except (ValueError, OverflowError, parser.UnknownTimezoneWarning) as e:
        why = e
    if when is None:
        _known_zone(text)
        try:  # "DATE TIME Europe/Paris", as nbgrader reads it
            when = parse_utc(text)
        except Exception as e:  # whatever nbgrader's reading raises, the date is unreadable
            # the first reader's reason: nbgrader's rewrites the text ("Dec 32 TZ")
            why = why if isinstance(why, ValueError) and why.args else e
            said = _("cannot read the due date {date} ({why}); give e.g. {examples}")
            raise DueError(said.format(date=repr(text), why=why, examples=_(EXAMPLES))) from e
    if when.tzinfo is not None:
        when = when.astimezone(timezone.utc).replace(tzinfo=None)
    return when


# nbgrader's timestamp.txt: "DATE TIME ZONE" (its Exchange.timestamp_format, "%Y-%m-%d %H:%M:%S.%f
# %Z"). ZONE is an abbreviation or key of the IANA database ("UTC", "CET", "Europe/Paris") or an
# offset ("+0100"); none is UTC.
_STAMP = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?"
    r"(?: (?:(?P<offset>[+-]\d\d:?\d\d)|(?P<zone>[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*)))?"
)
_UTC_NAMES = {"UTC", "Z", "GMT", "Etc/UTC"}


def read_timestamp(text: str) -> datetime:
    """The time in a learner's ``timestamp.txt``, in UTC without a time zone, as nbgrader reads
    the one it writes; anything else raises ValueError. Stricter than nbgrader's ``parse_utc``,
    which hands a zone it cannot parse to dateutil's ``gettz``: that opens a zone named by a path
    as a file, anywhere on the host, with no size limit (red team round 22). A zone here is an
    offset or a key of the IANA database, which ``zoneinfo`` reads from its own folders only."""
    found = _STAMP.fullmatch(text.strip())
    if found is None:
        said = _("not nbgrader's 'YYYY-MM-DD HH:MM:SS ZONE': {text}")
        raise ValueError(said.format(text=repr(text.strip()[:60])))
    year, month, day, hour, minute, second = map(int, found.groups()[:6])
    micro = int((found.group(7) or "0").ljust(6, "0"))
    when = datetime(year, month, day, hour, minute, second, micro)
    offset, zone = found.group("offset"), found.group("zone")
    if offset:
        sign = -1 if offset[0] == "-" else 1
        digits = offset[1:].replace(":", "")
        return when - sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    if zone is None or zone in _UTC_NAMES:
        return when
    tz = _zone(zone)
    return when.replace(tzinfo=tz).astimezone(timezone.utc).replace(tzinfo=None)


def _zone(name: str):
    """The IANA database's zone ``name`` (``zoneinfo``: its own folders only), or ValueError."""
    import zoneinfo

    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError) as e:  # a folder ("Europe")
        raise ValueError(_("unknown time zone {name}").format(name=repr(name[:60]))) from e


def _known_zone(text: str) -> None:
    """A date ending in a zone that neither dateutil nor the IANA database knows is refused:
    nbgrader's reading takes it as UTC without a word ("Europe/Pairs", a typo, moved the due date
    by an hour; "Dec 1 2026 23:59 CST" was 23:59 UTC). An abbreviation such as CST is refused as
    the ambiguity it is (China's, and the US's Central time), with the forms that are not."""
    parts = text.split(" ")
    zone = parts[-1]
    if len(parts) < 3 or re.fullmatch(r"[+-]?\d+", zone) or zone in _UTC_NAMES:
        return
    if "/" not in zone and not _a_date(" ".join(parts[:-1])):
        return  # a date that is not "DATE ZONE": dateutil's own reason says why
    try:
        _zone(zone)
    except ValueError as e:
        import zoneinfo

        close = difflib.get_close_matches(zone, zoneinfo.available_timezones(), 1, 0.8)
        if close:  # a typo: the date as it was meant
            fixed = repr(" ".join([*parts[:-1], close[0]]))
            said = _("cannot read the due date {date}: {why}; did you mean {fixed}?")
            raise DueError(said.format(date=repr(text), why=e, fixed=fixed)) from None
        if re.fullmatch(r"[A-Z]{2,5}", zone):
            said = _(
                "cannot read the due date {date}: {zone} is an abbreviation, which several "
                "time zones share (CST is China's and also the US's Central time); write a name "
                "of the IANA database, such as {name}, or an offset, such as {offset}"
            )
            raise DueError(said.format(date=repr(text), zone=zone, **_zone_examples())) from None
        said = _(
            "cannot read the due date {date}: {why} (a name of the IANA database, such as "
            "{name}, or an offset, such as {offset}); give e.g. {examples}"
        )
        examples = _(EXAMPLES)
        raise DueError(
            said.format(date=repr(text), why=e, examples=examples, **_zone_examples())
        ) from None


def _a_date(text: str) -> bool:
    """Whether dateutil reads ``text`` as a date (what comes before a zone abbreviation)."""
    from dateutil import parser

    try:
        parser.parse(text)
    except (ValueError, OverflowError):
        return False
    return True


def _zone_examples() -> dict[str, str]:
    return {"name": _(ZONE_EXAMPLE), "offset": _(OFFSET_EXAMPLE)}


def _no_posix_offset(text: str) -> None:
    """ "UTC+8" and "GMT+8" are refused: dateutil, which nbgrader reads dates with, takes them
    the POSIX way, 8 hours *behind* UTC, where a person means +0800 (16 hours apart)."""
    found = re.search(r"\b(?:UTC|GMT)([+-])(\d{1,2})(?::?(\d\d))?\Z", text)
    if found:
        sign, hours, minutes = found[1], int(found[2]), found[3] or "00"
        offset = f"{sign}{hours:02d}{minutes}"
        said = _(
            "cannot read the due date {date}: {zone} is read as {behind} by nbgrader (the POSIX "
            "way round); write the offset alone, e.g. {fixed}"
        )
        fixed = repr(text[: found.start()] + offset)
        behind = f"{'-' if sign == '+' else '+'}{hours:02d}{minutes}"
        raise DueError(said.format(date=repr(text), zone=found[0], behind=behind, fixed=fixed))


_OFFSET = re.compile(r"([+-])(\d\d):?(\d\d)\Z")


def zone_of(text: str) -> str | None:
    """The zone a due date was given in, as written: a name of the IANA database
    ("Asia/Shanghai") or an offset ("+0800", "+08:00"); None for UTC or no zone (its times are
    shown in UTC). Only for a date :func:`parse_due` reads."""
    text = str(text).strip()
    offset = re.search(r"(?<=[\s\d])[+-]\d\d:?\d\d\Z", text)  # "23:59 +0800", "23:59+08:00"
    if offset:
        return None if offset[0][1:].replace(":", "") == "0000" else offset[0]
    last = text.rsplit(" ", 1)[-1]
    if last in _UTC_NAMES or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*", last):
        return None
    try:
        _zone(last)
    except ValueError:
        return None
    return last


def local(when: datetime, zone: str | None) -> datetime:
    """``when`` (naive UTC) as the clock of ``zone`` (see :func:`zone_of`) reads it, naive; in
    UTC where the zone is None or unknown here (a results file from another machine)."""
    if not zone:
        return when
    found = _OFFSET.fullmatch(zone)
    if found:
        sign = -1 if found[1] == "-" else 1
        tz = timezone(sign * timedelta(hours=int(found[2]), minutes=int(found[3])))
    else:
        try:
            tz = _zone(zone)
        except ValueError:
            return when
    return when.replace(tzinfo=timezone.utc).astimezone(tz).replace(tzinfo=None)


def parse_utc(text: str) -> datetime:
    """nbgrader's own reading of a date (nbgrader imports nbformat: see ``import_nbformat``), for
    the instructor's due dates; a learner's timestamp is :func:`read_timestamp`'s."""
    from autograder.core.extract import import_nbformat

    import_nbformat()
    from nbgrader.utils import parse_utc

    return parse_utc(text)


def assignments() -> list[str]:
    """The course's assignments: its released folders (``04_softmax_masks``)."""
    if not RELEASE.is_dir():
        return []
    return sorted(p.name for p in RELEASE.iterdir() if re.match(r"\d\d_", p.name))


def split(item: str) -> tuple[str | None, str]:
    """``04_softmax_masks=Dec 1 2026`` -> (``04_softmax_masks``, ``Dec 1 2026``); a date alone
    (it names no assignment: every assignment) -> (None, the date)."""
    name, sep, when = item.partition("=")
    if sep and re.fullmatch(r"[\w.-]+", name.strip()):
        return name.strip(), when
    return None, item


class DueDates(dict):
    """Due dates by assignment (naive UTC), and in ``zones`` the zone each was given in."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.zones: dict[str | None, str | None] = {}


def read_dues(given: list[str] | None, configured: dict | str | None = None) -> DueDates:
    """Due dates by assignment (``None``: every assignment) from the config's
    ``c.Autograder.due_dates`` and then the command line's ``--due``, which wins, with the zone
    each was given in (``zones``). An assignment the course does not have is refused as
    unknown, naming the ones it has."""
    known = assignments()
    dates = DueDates()

    def check(name: str | None, where: str) -> None:
        if name is not None and known and name not in known:
            said = _(
                "{where}: {name} is not an assignment of the course (it has {known}); a due "
                "date for every assignment is given without a name"
            )
            said = said.format(where=where, name=repr(name), known=_(", ").join(known))
            close = difflib.get_close_matches(name, known, n=1)
            if close:
                said += _("; did you mean {name}?").format(name=close[0])
            raise DueError(said)

    if isinstance(configured, str):  # one date for every assignment
        configured = {None: configured}
    for name, when in (configured or {}).items():
        check(name, "c.Autograder.due_dates")
        dates[name], dates.zones[name] = parse_due(when), zone_of(when)
    for item in given or []:
        name, when = split(item)
        check(name, f"--due {item!r}")
        dates[name], dates.zones[name] = parse_due(when), zone_of(when)
    return dates
