"""Rule profiles: the federations' rules as data (docs/rules.md section 2).

Every parameter can be overridden per tournament under ``rules:`` in the
start list::

    >>> p = profile("bg-email")
    >>> p.days_per_control, p.oversteps_to_lose
    (50, 1)
    >>> profile("bg-email", {"days_per_control": 40}).days_per_control
    40
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from mailbot.rules.errors import RulesError


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
    """A profile name or override is not valid; ``path`` names the key."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


@dataclasses.dataclass(frozen=True)
class Profile:
    """The parameters of one rule set. All durations are in days."""

    name: str
    #: Thinking days allowed per control period (``days_per_control`` per ``moves_per_control``).
    days_per_control: int
    moves_per_control: int
    day_counting: DayCounting
    #: Number of oversteps that lose the game (1: the first; 2: the second).
    oversteps_to_lose: int
    leave_days_per_year: int
    #: Repeat an unanswered move after this many days (None: never, e.g. server play).
    repeat_after_days: int | None
    #: Extra days for the post to travel, added to the repeat limit.
    repeat_transit_days: int
    #: The repeat goes to the TD in copy (art. 26 B: e-mail play).
    repeat_copies_director: bool
    #: Silence (days without a move or a delay notice) that loses, or None.
    silence_days: int | None
    #: The silence loss applies only if the move was repeated first (art. 31).
    silence_requires_repeat: bool
    #: Silence that only goes to the TD for a decision (no automatic loss), or None.
    silence_report_days: int | None
    #: A player who will answer later than this must send a delay notice (art. 25).
    notice_after_days: int
    #: Days added for an impossible, incorrect or unclear move (art. 17).
    penalty_days: int
    #: For elapsed-hours counting: days above this on one move count double.
    double_after_days: int | None
    #: Forfeits stand without the TD's confirmation.
    auto_forfeit: bool
    #: Days the TD has to decide a claim (art. 37).
    td_decision_days: int
    #: Days each player has to send an adjudication claim (art. 52).
    adjudication_claim_days: int
    #: Longest extension of the tournament, in months (art. 50).
    extension_max_months: int
    #: Extension allowed only while fewer than this share of games is finished.
    extension_finished_share: float
    withdrawal: WithdrawalPolicy
    #: ICCF: the 50-move rule yields to a tablebase win (003 part 1 art. 1a, 11b).
    tablebase_rule: bool
    timezone: str
    #: 003 part 1 art. 7e: the new count starts the moment the first overstep is
    #: found, so a player silent past it oversteps again. Art. 30, 33 (False):
    #: the new count starts at zero with the next move.
    count_runs_from_overstep: bool = False
    #: Art. 7 З note (postal letters): after a first overstep the totals of the
    #: move line count from the new count; otherwise the whole game's.
    totals_from_new_count: bool = False
    #: 003 part 1 art. 4a: a numeric form beside the move that names another move
    #: makes it unclear. Art. 7 note 3 (False): the numeric form decides nothing,
    #: the algebraic form is judged alone.
    numeric_form_decides: bool = True
    #: Art. 45: leave stops play in all the player's games, the opponent's clock
    #: too. 003 part 1 art. 8a (False): the opponent's clock runs on their move.
    leave_stops_opponent: bool = False
    #: Art. 17: at this many rejected moves of one player in one game, and at each
    #: further one, the director is told (a systematic violation may lose the
    #: game); 0: never.
    rejections_to_director: int = 3
    #: Days before the overstep on which the player to move is warned (docs/contract.md,
    #: "Warnings before deadlines").
    warn_control_days: tuple[int, ...] = (10, 3)
    #: Days before the silence notice (where the profile has one) the player is warned.
    warn_silence_days: tuple[int, ...] = (5,)
    #: Days before the end of the event both players of an unfinished game are warned.
    warn_end_days: tuple[int, ...] = (30,)

    def with_overrides(self, overrides: Mapping[str, Any], path: str = "rules") -> Profile:
        """Return a copy with ``overrides`` applied; unknown keys and wrong types raise.

        >>> profile("bg-post").with_overrides({"auto_forfeit": True}).auto_forfeit
        True
        """
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            where = f"{path}.{key}"
            if key == "name" or key not in fields:
                raise ProfileError(where, "unknown rule parameter")
            current = getattr(self, key)
            changes[key] = _coerce(where, current, value, fields[key])
        return dataclasses.replace(self, **changes)


#: The largest whole number a rule parameter takes (days, moves, months: a clock
#: computed from a larger one would pass the last day a date can have).
MAX_RULE_NUMBER = 10_000


def _coerce(path: str, current: Any, value: Any, field: dataclasses.Field[Any]) -> Any:
    nullable = "None" in str(field.type)
    if value is None:
        if nullable:
            return None
        raise ProfileError(path, "may not be empty")
    if isinstance(current, enum.Enum):
        try:
            return type(current)(value)
        except ValueError:
            choices = ", ".join(str(m.value) for m in type(current))
            raise ProfileError(path, f"must be one of {choices}") from None
    if field.type == "tuple[int, ...]":
        return _days(path, value)
    if isinstance(current, bool) or field.type == "bool":
        if not isinstance(value, bool):
            raise ProfileError(path, "must be true or false")
        return value
    if field.type == "float":
        # The one number that is not whole is a share (extension_finished_share).
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ProfileError(path, "must be a number from 0 to 1")
        return float(value)
    if field.type == "str":
        if not isinstance(value, str):
            raise ProfileError(path, "must be text")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(path, "must be a whole number")
    if value < 0:
        raise ProfileError(path, "must not be negative")
    if value > MAX_RULE_NUMBER:
        raise ProfileError(path, f"must be at most {MAX_RULE_NUMBER}")
    return value


def _days(path: str, value: Any) -> tuple[int, ...]:
    """A list of whole numbers of days, each at least 1 (``[10, 3]``).

    >>> _days("rules.warn_end_days", [30, 7])
    (30, 7)
    """
    if not isinstance(value, list | tuple) or any(
        isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_RULE_NUMBER
        for v in value
    ):
        raise ProfileError(
            path, f"must be a list of whole numbers of days, each from 1 to {MAX_RULE_NUMBER}"
        )
    return tuple(value)


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
