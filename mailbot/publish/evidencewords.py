"""The fixed words of a dispute file (``index.txt``, ``moves.txt``) in the event's
language: English, Bulgarian, Russian; another language gets English.

>>> words_for("bg")["heading"], words_for("xx")["heading"]
('Досие на спора за партия ', 'Dispute file of ')
>>> coded(words_for("ru"), "claim", "silence"), coded(words_for("ru"), "claim", "new-kind")
('молчание', 'new-kind')
"""

from __future__ import annotations

from collections.abc import Mapping

from mailbot.rules.languages import plural

__all__ = ["HEADINGS", "WORDS", "Wording", "coded", "words_for"]

_EN: Mapping[str, object] = {
    "heading": "Dispute file of ",
    "event": "{name} ({profile}), director {director}",
    "intro": (
        "Every message the bot received about the game, byte for byte as it reached",
        "the bot's mailbox, and every message it sent about it, as the outbox",
        "composed it; in time order. Instants are UTC (ISO 8601): received is the",
        "arrival in the bot's mailbox (IMAP INTERNALDATE), sent the outbox pass in",
        "which the SMTP server accepted the message. Mail not sent (waiting or given",
        "up) has no sending instant; its name carries when it was queued. The moves,",
        "their dates and days are in moves.txt.",
    ),
    "not_written": "(not written)",
    "received": "received {when} (arrival in the bot's mailbox)",
    "from": "from {who}",
    "to": "to {who}",
    "cc": "; cc {who}",
    "subject": "subject: {subject}",
    "received_id": "message-id: {id}; handled: {handled}",
    "sent": "sent {when} (accepted by the SMTP server)",
    "unsent": "not sent ({state} after {attempts} attempts{reason}); queued {when}",
    "last_error": ", last error: {error}",
    "given_up": "given up",
    "waiting": "waiting",
    "sent_id": "message-id: {id}; event: {event}{about}",
    "several": " (a message about several games)",
    "cannot": "cannot be composed: {problem}",
    "moves_of": "Moves of {tag}: {white} (White) – {black} (Black)",
    "control": "{name}; {profile}: {days} per {moves} moves; clocks started {start}",
    "result": "result {result} ({termination}){ended}",
    "in_play": "in play: {turn} to move after ply {ply}",
    "legend": (
        "Dates are calendar days in {tz}; instants are UTC.",
        "received: the receipt day as the clock counts it (in the Bulgarian profiles the",
        "day after the move reached the player, art. 8; for the first move the start,",
        "art. 24); sent: the day the move reached the bot; days: thinking days charged",
        "to the move (penalties apart); arrived: the instant the move reached the bot's",
        "mailbox; forwarded: the instant the bot sent it on to the opponent.",
    ),
    "columns": ("ply", "move", "received", "sent", "days", "arrived", "forwarded"),
    "conditional": "conditional",
    "penalties": "Penalties",
    "none": "none",
    "penalty": "{colour} +{days} ({reason}) at ply {ply}, by the {by}, {when}",
    "by": {"td": "director", "referee": "referee", "player": "player"},
    "time_used": "Time used (penalties included): White {white}, Black {black}",
    "clock": "{colour}: {used} of {limit} days used by move {move} (count from move {start})",
    "oversteps": "; oversteps: {steps}",
    "overstep": "move {move} ({used} of {limit} days{awarded})",
    "awarded": ", awarded by the director",
    "claims": "Claims",
    "claim_by": " by {colour}",
    "claim_against": " against {colour}",
    "claim_opened": ", opened {when}: {status}",
    "claim_decided_by": " by {who}",
    "leave": "Leave",
    "leave_line": "{name} ({colour}): {start} to {end}, granted by the {by}",
    "cancelled": "; cancelled in this game from {date}",
    "delays": "Delay notices (art. 25)",
    "delay": "{colour}, for the move after ply {ply}, received {when}",
    "colour": {"white": "White", "black": "Black"},
    "colour_lower": {"white": "white", "black": "black"},
    "turn": {"white": "White", "black": "Black"},
    "day_forms": ("day", "days", "days"),
    "decider": {},
    "claim": {},
    "status": {},
    "reason": {},
    "mail_event": {},
}

_BG: Mapping[str, object] = {
    "heading": "Досие на спора за партия ",
    "event": "{name} ({profile}), главен съдия {director}",
    "intro": (
        "Всяко писмо, което ботът е получил за партията, байт по байт, както е стигнало",
        "до пощенската му кутия, и всяко писмо, което е изпратил за нея, както го е",
        "съставила изходящата опашка; по реда на времето. Моментите са в UTC (ISO 8601):",
        "„получено“ е пристигането в пощенската кутия на бота (IMAP INTERNALDATE),",
        "„изпратено“ е минаването на опашката, при което SMTP сървърът е приел писмото.",
        "Неизпратено писмо (чакащо или изоставено) няма момент на изпращане; името му",
        "носи кога е поставено в опашката. Ходовете, датите и дните им са в moves.txt.",
    ),
    "not_written": "(не е записано)",
    "received": "получено {when} (пристигане в пощенската кутия на бота)",
    "from": "от {who}",
    "to": "до {who}",
    "cc": "; копие до {who}",
    "subject": "тема: {subject}",
    "received_id": "идентификатор: {id}; обработка: {handled}",
    "sent": "изпратено {when} (прието от SMTP сървъра)",
    "unsent": "неизпратено ({state}, опити: {attempts}{reason}); в опашката от {when}",
    "last_error": ", последна грешка: {error}",
    "given_up": "изоставено",
    "waiting": "чака",
    "sent_id": "идентификатор: {id}; събитие: {event}{about}",
    "several": " (писмо за няколко партии)",
    "cannot": "не може да бъде съставено: {problem}",
    "moves_of": "Ходове в партия {tag}: {white} (белите) – {black} (черните)",
    "control": "{name}; {profile}: {days} за {moves} хода; часовниците тръгнаха на {start}",
    "result": "резултат {result} ({termination}){ended}",
    "in_play": "играе се: {turn} са на ход след полуход {ply}",
    "legend": (
        "Датите са календарни дни в {tz}; моментите са в UTC.",
        "получен: денят на получаване, както го брои часовникът (в българските профили",
        "денят след като ходът е стигнал до играча, чл. 8; за първия ход – началото,",
        "чл. 24); изпратен: денят, в който ходът е стигнал до бота; дни: дните за",
        "размисъл, отчетени за хода (без наказанията); пристигнал: моментът, в който",
        "ходът е стигнал до пощенската кутия на бота; препратен: моментът, в който",
        "ботът го е изпратил на противника.",
    ),
    "columns": ("пх", "ход", "получен", "изпратен", "дни", "пристигнал", "препратен"),
    "conditional": "условен",
    "penalties": "Наказания",
    "none": "няма",
    "penalty": "{colour} +{days} ({reason}) при полуход {ply}, от {by}, {when}",
    "by": {"td": "главния съдия", "referee": "съдията бот", "player": "играча"},
    "time_used": "Използвано време (с наказанията): белите {white}, черните {black}",
    "clock": "{colour}: {used} от {limit} дни използвани до ход {move} (брои се от ход {start})",
    "oversteps": "; превишения: {steps}",
    "overstep": "ход {move} ({used} от {limit} дни{awarded})",
    "awarded": ", признато от главния съдия",
    "claims": "Искания",
    "claim_by": " от {colour}",
    "claim_against": " срещу {colour}",
    "claim_opened": ", подадено {when}: {status}",
    "claim_decided_by": " от {who}",
    "leave": "Отпуск",
    "leave_line": "{name} ({colour}): от {start} до {end}, разрешен от {by}",
    "cancelled": "; отменен в тази партия от {date}",
    "delays": "Известия за забавяне (чл. 25)",
    "delay": "{colour}, за хода след полуход {ply}, получено {when}",
    "colour": {"white": "Белите", "black": "Черните"},
    "colour_lower": {"white": "белите", "black": "черните"},
    "turn": {"white": "белите", "black": "черните"},
    "day_forms": ("ден", "дни", "дни"),
    "decider": {"td": "главния съдия", "auto": "бота", "agreement": "двамата играчи"},
    "claim": {
        "silence": "мълчание",
        "overstep": "превишено време",
        "draw": "реми",
        "adjudication": "присъждане",
        "complaint": "жалба",
        "tablebase": "таблици",
    },
    "status": {
        "open": "открито",
        "confirmed": "потвърдено",
        "rejected": "отхвърлено",
        "new": "ново",
        "processed": "обработено",
        "ignored": "пренебрегнато",
        "quarantined": "под карантина",
    },
    "mail_event": {
        "start": "начало на турнира",
        "move": "ход до противника",
        "move-accepted": "потвърждение на хода",
        "move-rejected": "отхвърлен ход",
        "repeat": "повторение на хода",
        "silence": "мълчание",
        "overstep": "просрочване",
        "draw-offer": "предложение за реми",
        "game-over": "край на партията",
        "leave": "отпуск",
        "status": "положение",
        "digest": "сборно писмо",
        "notice": "известие",
        "error": "неизправност",
        "warning": "предупреждение за срок",
        "bounce": "недоставено писмо",
    },
    "reason": {
        "impossible": "невъзможен ход",
        "incorrect": "неправилен запис",
        "unclear": "неясен запис",
        "td": "решение на главния съдия",
        "groundless complaint": "неоснователна рекламация (чл. 22)",
        "art. 20": "уважена рекламация (чл. 20)",
    },
}

_RU: Mapping[str, object] = {
    "heading": "Досье спора по партии ",
    "event": "{name} ({profile}), главный судья {director}",
    "intro": (
        "Каждое письмо, полученное ботом о партии, байт в байт, как оно пришло в его",
        "почтовый ящик, и каждое письмо, отправленное им о ней, как его составила",
        "исходящая очередь; в порядке времени. Моменты указаны в UTC (ISO 8601):",
        "«получено» — приход в почтовый ящик бота (IMAP INTERNALDATE), «отправлено» —",
        "проход очереди, при котором SMTP-сервер принял письмо. У неотправленного письма",
        "(ждущего или оставленного) нет момента отправки; его имя несёт время постановки",
        "в очередь. Ходы, их даты и дни — в moves.txt.",
    ),
    "not_written": "(не записано)",
    "received": "получено {when} (приход в почтовый ящик бота)",
    "from": "от {who}",
    "to": "кому {who}",
    "cc": "; копия {who}",
    "subject": "тема: {subject}",
    "received_id": "идентификатор: {id}; обработка: {handled}",
    "sent": "отправлено {when} (принято SMTP-сервером)",
    "unsent": "не отправлено ({state}, попыток: {attempts}{reason}); в очереди с {when}",
    "last_error": ", последняя ошибка: {error}",
    "given_up": "оставлено",
    "waiting": "ждёт",
    "sent_id": "идентификатор: {id}; событие: {event}{about}",
    "several": " (письмо о нескольких партиях)",
    "cannot": "не может быть составлено: {problem}",
    "moves_of": "Ходы партии {tag}: {white} (белые) – {black} (чёрные)",
    "control": "{name}; {profile}: {days} на {moves} ходов; часы пущены {start}",
    "result": "результат {result} ({termination}){ended}",
    "in_play": "идёт игра: ход {turn} после полухода {ply}",
    "legend": (
        "Даты — календарные дни в {tz}; моменты указаны в UTC.",
        "получен: день получения, как его считают часы (в болгарских профилях — день",
        "после того, как ход дошёл до игрока, ст. 8; для первого хода — начало, ст. 24);",
        "отправлен: день, когда ход дошёл до бота; дни: дни на обдумывание, зачтённые",
        "ходу (без штрафов); пришёл: момент, когда ход пришёл в почтовый ящик бота;",
        "переслан: момент, когда бот отправил его сопернику.",
    ),
    "columns": ("пх", "ход", "получен", "отправлен", "дни", "пришёл", "переслан"),
    "conditional": "условный",
    "penalties": "Штрафы",
    "none": "нет",
    "penalty": "{colour} +{days} ({reason}) на полуходе {ply}, решение: {by}, {when}",
    "by": {"td": "главный судья", "referee": "судья-бот", "player": "игрок"},
    "time_used": "Израсходовано времени (со штрафами): белые {white}, чёрные {black}",
    "clock": "{colour}: {used} из {limit} дн. израсходовано к ходу {move} (счёт с хода {start})",
    "oversteps": "; превышения: {steps}",
    "overstep": "ход {move} ({used} из {limit} дн.{awarded})",
    "awarded": ", засчитано главным судьёй",
    "claims": "Заявления",
    "claim_by": ", заявитель: {colour}",
    "claim_against": ", против: {colour}",
    "claim_opened": ", подано {when}: {status}",
    "claim_decided_by": " ({who})",
    "leave": "Отпуск",
    "leave_line": "{name} ({colour}): с {start} по {end}, предоставил: {by}",
    "cancelled": "; отменён в этой партии с {date}",
    "delays": "Уведомления о задержке (ст. 25)",
    "delay": "{colour}, о ходе после полухода {ply}, получено {when}",
    "colour": {"white": "Белые", "black": "Чёрные"},
    "colour_lower": {"white": "белые", "black": "чёрные"},
    "turn": {"white": "белых", "black": "чёрных"},
    "day_forms": ("дн.", "дн.", "дн."),
    "decider": {"td": "главный судья", "auto": "бот", "agreement": "соглашение игроков"},
    "claim": {
        "silence": "молчание",
        "overstep": "превышение времени",
        "draw": "ничья",
        "adjudication": "присуждение",
        "complaint": "жалоба",
        "tablebase": "таблицы",
    },
    "status": {
        "open": "открыто",
        "confirmed": "подтверждено",
        "rejected": "отклонено",
        "new": "новое",
        "processed": "обработано",
        "ignored": "оставлено без внимания",
        "quarantined": "в карантине",
    },
    "mail_event": {
        "start": "начало турнира",
        "move": "ход сопернику",
        "move-accepted": "подтверждение хода",
        "move-rejected": "отклонённый ход",
        "repeat": "повторение хода",
        "silence": "молчание",
        "overstep": "просрочка",
        "draw-offer": "предложение ничьей",
        "game-over": "конец партии",
        "leave": "отпуск",
        "status": "положение",
        "digest": "сводное письмо",
        "notice": "уведомление",
        "error": "неполадка",
        "warning": "предупреждение о сроке",
        "bounce": "недоставленное письмо",
    },
    "reason": {
        "impossible": "невозможный ход",
        "incorrect": "неверная запись",
        "unclear": "неясная запись",
        "td": "решение главного судьи",
        "groundless complaint": "необоснованная рекламация (ст. 22)",
        "art. 20": "удовлетворённая рекламация (ст. 20)",
    },
}

#: The words of each language the dispute file is written in.
WORDS: Mapping[str, Mapping[str, object]] = {"en": _EN, "bg": _BG, "ru": _RU}
#: The first words of ``index.txt`` in every language: how a dispute file is recognised.
HEADINGS: tuple[str, ...] = tuple(str(w["heading"]) for w in WORDS.values())


def words_for(language: str) -> Mapping[str, object]:
    """The words of ``language``; English for a language not in :data:`WORDS`."""
    return WORDS.get(language, _EN)


def coded(words: Mapping[str, object], table: str, code: str) -> str:
    """A stored code (a claim's kind, a status, a reason) in words, or the code itself."""
    names = words[table]
    assert isinstance(names, Mapping)
    return str(names.get(code, code))


class Wording:
    """The dispute file's words in one language, filled in.

    >>> w = Wording("bg")
    >>> w.days(1), w.days(5), w("from", who="a@b.example"), w.colour("white")
    ('1 ден', '5 дни', 'от a@b.example', 'Белите')
    >>> Wording("en").days(1), Wording("en").days(2)
    ('1 day', '2 days')
    """

    def __init__(self, language: str) -> None:
        self.language = language if language in WORDS else "en"
        self.words = words_for(language)

    def __call__(self, key: str, **details: object) -> str:
        return str(self.words[key]).format(**details)

    def lines(self, key: str, **details: object) -> list[str]:
        value = self.words[key]
        assert isinstance(value, tuple)
        return [str(line).format(**details) for line in value]

    def code(self, table: str, value: str) -> str:
        return coded(self.words, table, value)

    def colour(self, name: str, table: str = "colour") -> str:
        """``white`` / ``black`` as ``table`` names it (``colour``, ``colour_lower``, ``turn``)."""
        return coded(self.words, table, name)

    def days(self, n: int) -> str:
        forms = self.words["day_forms"]
        assert isinstance(forms, tuple)
        one, few, many = (str(f) for f in forms)
        return f"{n} {plural(n, self.language, one, few, many)}"
