"""Rule profiles: the federations' rules as data (docs/rules.md section 2).

Every parameter can be overridden per tournament under ``rules:`` in the
start list::

    >>> p = profile("bg-email")
    >>> p.days_per_control, p.oversteps_to_lose
    (50, 1)
    >>> profile("bg-email", {"days_per_control": 40}).days_per_control
    40

Every mistake of the overrides is found in one reading, one line each::

    >>> print(ProfileError.of(lambda: profile("bg-email", {"days_per_control": "x",
    ...     "auto_forfeit": 1, "colour": "red"})))
    rules.days_per_control: must be a whole number
    rules.auto_forfeit: must be true or false
    rules.colour: unknown rule parameter
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar

from pydantic import ConfigDict, Field, Strict, TypeAdapter, ValidationError

from mailbot.rules.errors import RulesError
from mailbot.rules.validation import mistakes_of


class DayCounting(enum.Enum):
    """How the days of one move are counted (docs/rules.md 2.1)."""

    #: Calendar days, the day of receipt not counted (art. 8 D).
    CALENDAR_AFTER_RECEIPT = "calendar-after-receipt"
    #: Calendar days, the day of receipt counted (003 part 1 art. 6a).
    CALENDAR_FROM_RECEIPT = "calendar-from-receipt"
    #: Elapsed 24-hour units (003 part 2 art. 6b).
    ELAPSED_HOURS = "elapsed-hours"


class WithdrawalPolicy(enum.Enum):
    """What happens to the unfinished games of a withdrawn player (docs/rules.md 6)."""

    #: Bulgarian art. 47 A: without a valid reason every unfinished game is lost;
    #: with one (art. 48: serious illness, death) the games are adjudicated.
    LOSE_ALL = "lose-all"
    #: ICCF (003 part 1 art. 9): lost without a valid reason; with one,
    #: adjudicated when 25+ moves on average or a game was finished, else annulled.
    ICCF = "iccf"


class ProfileError(RulesError, ValueError):
    """A profile name or override is not valid; ``path`` names the key (the first
    mistake's), ``mistakes`` every mistake found as ``(path, message)``, one line each."""

    def __init__(self, path: str, message: str, *more: tuple[str, str]) -> None:
        self.mistakes: tuple[tuple[str, str], ...] = ((path, message), *more)
        super().__init__("\n".join(f"{p}: {m}" for p, m in self.mistakes))
        self.path = path
        self.message = message

    @staticmethod
    def of(make: Callable[[], object]) -> str:
        """The text of the mistake ``make()`` raises (for the examples)."""
        try:
            make()
        except ProfileError as exc:
            return str(exc)
        return ""


#: The largest whole number a rule parameter takes (days, moves, months: a clock
#: computed from a larger one would pass the last day a date can have).
MAX_RULE_NUMBER = 10_000

#: A whole number of days, moves or months.
Number = Annotated[int, Strict(), Field(ge=0, le=MAX_RULE_NUMBER)]
#: A list of days before a deadline, each at least 1 (``[10, 3]``).
Days = tuple[Annotated[int, Strict(), Field(ge=1, le=MAX_RULE_NUMBER)], ...]
#: The one number that is not whole: a share (extension_finished_share).
Share = Annotated[float, Strict(), Field(ge=0, le=1)]
Flag = Annotated[bool, Strict()]
Text = Annotated[str, Strict()]

#: The messages of an override's mistakes, by pydantic's error type.
_PHRASES = {
    "greater_than_equal": "must not be negative",
    "unexpected_keyword_argument": "unknown rule parameter",
    "empty": "may not be empty",
}
#: The parameters whose mistakes are said as one phrase, wherever in them.
_WHOLE = {
    "extension_finished_share": "must be a number from 0 to 1",
    **{
        name: f"must be a list of whole numbers of days, each from 1 to {MAX_RULE_NUMBER}"
        for name in ("warn_control_days", "warn_silence_days", "warn_end_days")
    },
}


@dataclasses.dataclass(frozen=True)
class Profile:
    """The parameters of one rule set. All durations are in days."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    name: str
    #: Thinking days allowed per control period (``days_per_control`` per ``moves_per_control``).
    days_per_control: Number
    moves_per_control: Number
    day_counting: DayCounting
    #: Number of oversteps that lose the game (1: the first; 2: the second).
    oversteps_to_lose: Number
    leave_days_per_year: Number
    #: Repeat an unanswered move after this many days (None: never, e.g. server play).
    repeat_after_days: Number | None
    #: Extra days for the post to travel, added to the repeat limit.
    repeat_transit_days: Number
    #: The repeat goes to the TD in copy (art. 26 B: e-mail play).
    repeat_copies_director: Flag
    #: Silence (days without a move or a delay notice) that loses, or None.
    silence_days: Number | None
    #: The silence loss applies only if the move was repeated first (art. 31).
    silence_requires_repeat: Flag
    #: Silence that only goes to the TD for a decision (no automatic loss), or None.
    silence_report_days: Number | None
    #: A player who will answer later than this must send a delay notice (art. 25).
    notice_after_days: Number
    #: Days added for an impossible, incorrect or unclear move (art. 17).
    penalty_days: Number
    #: For elapsed-hours counting: days above this on one move count double.
    double_after_days: Number | None
    #: Forfeits stand without the TD's confirmation.
    auto_forfeit: Flag
    #: Days the TD has to decide a claim (art. 37).
    td_decision_days: Number
    #: Days each player has to send an adjudication claim (art. 52).
    adjudication_claim_days: Number
    #: Longest extension of the tournament, in months (art. 50).
    extension_max_months: Number
    #: Extension allowed only while fewer than this share of games is finished.
    extension_finished_share: Share
    withdrawal: WithdrawalPolicy
    #: ICCF: the 50-move rule yields to a tablebase win (003 part 1 art. 1a, 11b).
    tablebase_rule: Flag
    timezone: Text
    #: 003 part 1 art. 7e: the new count starts the moment the first overstep is
    #: found, so a player silent past it oversteps again. Art. 30, 33 (False):
    #: the new count starts at zero with the next move.
    count_runs_from_overstep: Flag = False
    #: Art. 7 З note (postal letters): after a first overstep the totals of the
    #: move line count from the new count; otherwise the whole game's.
    totals_from_new_count: Flag = False
    #: 003 part 1 art. 4a: a numeric form beside the move that names another move
    #: makes it unclear. Art. 7 note 3 (False): the numeric form decides nothing,
    #: the algebraic form is judged alone.
    numeric_form_decides: Flag = True
    #: Art. 45: leave stops play in all the player's games, the opponent's clock
    #: too. 003 part 1 art. 8a (False): the opponent's clock runs on their move.
    leave_stops_opponent: Flag = False
    #: Art. 17: at this many rejected moves of one player in one game, and at each
    #: further one, the director is told (a systematic violation may lose the
    #: game); 0: never.
    rejections_to_director: Number = 3
    #: Days before the overstep on which the player to move is warned (docs/contract.md,
    #: "Warnings before deadlines").
    warn_control_days: Days = (10, 3)
    #: Days before the silence notice (where the profile has one) the player is warned.
    warn_silence_days: Days = (5,)
    #: Days before the end of the event both players of an unfinished game are warned.
    warn_end_days: Days = (30,)

    def with_overrides(self, overrides: Mapping[str, Any], path: str = "rules") -> Profile:
        """Return a copy with ``overrides`` applied; every unknown key and wrong value
        is a line of one :class:`ProfileError`.

        >>> profile("bg-post").with_overrides({"auto_forfeit": True}).auto_forfeit
        True
        """
        keys = {str(key): value for key, value in overrides.items()}
        found = [(f"{path}.name", "unknown rule parameter")] if "name" in keys else []
        keys.pop("name", None)
        current = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        try:
            made = _shape().validate_python({**current, **keys})
        except ValidationError as exc:
            found += mistakes_of(exc, _PHRASES, whole=_WHOLE, prefix=(path,))
        if found:
            raise ProfileError(found[0][0], found[0][1], *found[1:])
        return made


@functools.cache
def _shape() -> TypeAdapter[Profile]:
    """The validator of a profile, built at its first use."""
    return TypeAdapter(Profile)


_BG_EMAIL = Profile(
    name="bg-email",
    days_per_control=50,
    moves_per_control=10,
    day_counting=DayCounting.CALENDAR_AFTER_RECEIPT,
    oversteps_to_lose=1,
    leave_days_per_year=30,
    repeat_after_days=14,
    repeat_transit_days=0,
    repeat_copies_director=True,
    silence_days=40,
    silence_requires_repeat=True,
    silence_report_days=None,
    notice_after_days=40,
    penalty_days=5,
    double_after_days=None,
    auto_forfeit=False,
    td_decision_days=7,
    adjudication_claim_days=15,
    extension_max_months=6,
    extension_finished_share=0.91,
    withdrawal=WithdrawalPolicy.LOSE_ALL,
    tablebase_rule=False,
    timezone="Europe/Sofia",
    numeric_form_decides=False,
    leave_stops_opponent=True,
)

PROFILES: dict[str, Profile] = {
    "bg-email": _BG_EMAIL,
    "bg-post": dataclasses.replace(
        _BG_EMAIL,
        name="bg-post",
        days_per_control=30,
        oversteps_to_lose=2,
        repeat_copies_director=False,
        silence_days=None,
        silence_requires_repeat=False,
        silence_report_days=120,
        notice_after_days=28,
        totals_from_new_count=True,
    ),
    "iccf-postal": dataclasses.replace(
        _BG_EMAIL,
        name="iccf-postal",
        days_per_control=30,
        day_counting=DayCounting.CALENDAR_FROM_RECEIPT,
        oversteps_to_lose=2,
        leave_days_per_year=45,
        repeat_transit_days=7,
        repeat_copies_director=False,
        silence_days=None,
        silence_requires_repeat=False,
        silence_report_days=120,
        notice_after_days=14,
        withdrawal=WithdrawalPolicy.ICCF,
        tablebase_rule=True,
        timezone="UTC",
        count_runs_from_overstep=True,
        numeric_form_decides=True,
        leave_stops_opponent=False,
    ),
    "iccf-server": dataclasses.replace(
        _BG_EMAIL,
        name="iccf-server",
        days_per_control=50,
        day_counting=DayCounting.ELAPSED_HOURS,
        oversteps_to_lose=1,
        leave_days_per_year=45,
        repeat_after_days=None,
        silence_days=40,
        silence_requires_repeat=False,
        notice_after_days=40,
        double_after_days=20,
        withdrawal=WithdrawalPolicy.ICCF,
        tablebase_rule=True,
        timezone="UTC",
        numeric_form_decides=True,
        leave_stops_opponent=False,
    ),
}


def profile(name: str, overrides: Mapping[str, Any] | None = None) -> Profile:
    """The preset ``name`` with ``overrides`` applied.

    >>> profile("iccf-server").double_after_days
    20
    """
    try:
        base = PROFILES[name]
    except KeyError:
        raise ProfileError("profile", f"must be one of {', '.join(PROFILES)}") from None
    return base.with_overrides(overrides or {}) if overrides else base
