"""A class's results, read from what its room keeps: per question (each round's spread, the share right, the
most common wrong answer and the misconception it stands for, how many moved between the two votes) and per seat
(what it answered, how many right), the seats that may need help, and the two CSV downloads.

Seats are named in results by an alias ("Seat 7", numbered in the order seats first answered) and the nickname the
student chose, never by their token (a token is the seat's credential). Every cell of a CSV that a spreadsheet
would read as a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written with a
leading apostrophe, so a nickname like ``=HYPERLINK(...)`` stays text.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from .store import AnswerRow, RoomDump, RoomState

HELP_SHARE = 0.5     # a seat right on less than this share of what it answered may need help
HELP_MIN_ANSWERS = 2
HELP_LIST = 8        # the teacher reads a short list, not a ranking of the class


@dataclass(frozen=True)
class QuestionInfo:
    """What a question asked, as the teacher's page drew it: its key, the lesson's address, the question, the
    options in order, the right option's index, and per option the misconception it stands for (None for the
    right one)."""
    question: str
    lesson: str
    text: str
    options: tuple[str, ...]
    answer: int
    misconceptions: tuple[str | None, ...]

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> QuestionInfo | None:
        """The info kept in the store, or None when it is not one (an older or damaged entry)."""
        try:
            raw = json.loads(text)
            info = cls(str(raw["question"]), str(raw["lesson"]), str(raw["text"]),
                       tuple(str(o) for o in raw["options"]), int(raw["answer"]),
                       tuple(None if m is None else str(m) for m in raw["misconceptions"]))
        except (ValueError, KeyError, TypeError):
            return None
        return info if 0 <= info.answer < len(info.options) else None

    def option(self, choice: int) -> str:
        return self.options[choice] if 0 <= choice < len(self.options) else f"option {choice + 1}"


@dataclass(frozen=True)
class RoomRecord:
    """A room's results as read at ``read_at``: its state, every answer in time order, seat -> nickname, the
    questions' infos, seat -> alias ("Seat N", by first answer), and seat -> the course progress its browser
    reported (the app's progress cookie text)."""
    code: str
    state: RoomState
    answers: tuple[AnswerRow, ...]
    nicknames: Mapping[str, str]
    questions: Mapping[str, QuestionInfo]
    aliases: Mapping[str, str]
    read_at: float
    courses: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, code: str, dump: RoomDump, read_at: float) -> RoomRecord:
        infos = {q: info for q, text in dump.questions.items() if (info := QuestionInfo.from_json(text))}
        order = dict.fromkeys(a.seat for a in dump.answers)
        aliases = {seat: f"Seat {i}" for i, seat in enumerate(order, 1)}
        return cls(code, dump.state, dump.answers, dict(dump.nicknames), infos, aliases, read_at, dict(dump.courses))

    def question_order(self) -> list[str]:
        """Questions in the order the room first answered them (those described but unanswered last)."""
        return list(dict.fromkeys([a.question for a in self.answers] + list(self.questions)))


@dataclass(frozen=True)
class RoundResult:
    """One round of a question: seats per option, how many answered and how many of them were right."""
    counts: tuple[int, ...]
    answered: int
    right: int

    @property
    def share_right(self) -> float | None:
        return self.right / self.answered if self.answered else None


@dataclass(frozen=True)
class QuestionResult:
    """A question's results: its info (None when the room never kept it), each round that has answers, the most
    common wrong option of its last round (None when nobody was wrong) and its count, and between the two votes
    how many seats (that answered both) moved from wrong to right and from right to wrong."""
    question: str
    info: QuestionInfo | None
    rounds: Mapping[int, RoundResult]
    common_wrong: int | None
    common_wrong_count: int
    wrong_to_right: int
    right_to_wrong: int
    revealed: bool

    @property
    def misconception(self) -> str | None:
        if self.info is None or self.common_wrong is None or self.common_wrong >= len(self.info.misconceptions):
            return None
        return self.info.misconceptions[self.common_wrong]


@dataclass(frozen=True)
class SeatResult:
    """A seat's results: alias, nickname ("" for none), question -> its last round's option, how many of the
    questions with a known answer it got right (``graded``: how many had one)."""
    seat: str
    alias: str
    nickname: str
    final: Mapping[str, int]
    right: int
    graded: int

    @property
    def share_right(self) -> float | None:
        return self.right / self.graded if self.graded else None


def _final(record: RoomRecord) -> dict[str, dict[str, int]]:
    """seat -> question -> its answer in the last round it answered."""
    final: dict[str, dict[str, tuple[int, int]]] = {}
    for a in record.answers:
        kept = final.setdefault(a.seat, {}).get(a.question)
        if kept is None or a.round >= kept[0]:
            final[a.seat][a.question] = (a.round, a.choice)
    return {seat: {q: c for q, (_, c) in mine.items()} for seat, mine in final.items()}


def question_results(record: RoomRecord) -> list[QuestionResult]:
    by_round: dict[tuple[str, int], dict[str, int]] = {}
    for a in record.answers:
        by_round.setdefault((a.question, a.round), {})[a.seat] = a.choice
    results = []
    for question in record.question_order():
        info = record.questions.get(question)
        size = len(info.options) if info else 1 + max((a.choice for a in record.answers if a.question == question),
                                                      default=-1)
        rounds = {}
        for r in (1, 2):
            chosen = by_round.get((question, r))
            if chosen:
                counts = Counter(chosen.values())
                right = counts.get(info.answer, 0) if info else 0
                rounds[r] = RoundResult(tuple(counts.get(i, 0) for i in range(size)), len(chosen), right)
        last = by_round.get((question, max(rounds, default=1)), {})
        wrong = Counter(c for c in last.values() if info is not None and c != info.answer)
        common = wrong.most_common(1)[0] if wrong else (None, 0)
        moved = Counter()
        if info is not None:
            first, second = by_round.get((question, 1), {}), by_round.get((question, 2), {})
            for seat in first.keys() & second.keys():
                moved[(first[seat] == info.answer, second[seat] == info.answer)] += 1
        results.append(QuestionResult(question, info, rounds, common[0], common[1], moved[(False, True)],
                                      moved[(True, False)], question in record.state.revealed))
    return results


def seat_results(record: RoomRecord) -> list[SeatResult]:
    rows = []
    for seat, mine in _final(record).items():
        graded = [q for q in mine if q in record.questions]
        right = sum(mine[q] == record.questions[q].answer for q in graded)
        rows.append(SeatResult(seat, record.aliases[seat], record.nicknames.get(seat, ""), mine, right, len(graded)))
    return rows


def needs_help(seats: list[SeatResult]) -> list[SeatResult]:
    """A short list of seats that may need help: right on less than HELP_SHARE of at least HELP_MIN_ANSWERS
    graded answers, fewest right first."""
    struggling = [s for s in seats if s.graded >= HELP_MIN_ANSWERS and s.right < HELP_SHARE * s.graded]
    return sorted(struggling, key=lambda s: (s.right / s.graded, -s.graded, s.alias))[:HELP_LIST]


def _cell(value: object) -> str:
    """A CSV cell a spreadsheet shows as text: a leading formula character gets an apostrophe before it."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv(header: tuple[str, ...], rows: list[tuple]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([_cell(v) for v in row] for row in rows)
    return out.getvalue()


ANSWER_COLUMNS = ("room", "question", "lesson", "round", "seat", "nickname", "answer", "option", "right", "time")
SUMMARY_COLUMNS = ("room", "question", "lesson", "text", "round", "answered", "right", "share_right", "spread",
                   "most_common_wrong", "misconception", "wrong_to_right", "right_to_wrong")


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def answers_csv(record: RoomRecord, nicknames: bool = True) -> str:
    """One row per answer kept (a changed answer is its last choice), in time order; columns ANSWER_COLUMNS."""
    rows = []
    for a in record.answers:
        info = record.questions.get(a.question)
        right = "" if info is None else ("yes" if a.choice == info.answer else "no")
        rows.append((record.code, a.question, info.lesson if info else "", a.round, record.aliases[a.seat],
                     record.nicknames.get(a.seat, "") if nicknames else "", info.option(a.choice) if info else "",
                     a.choice + 1, right, _iso(a.at)))
    return _csv(ANSWER_COLUMNS, rows)


def summary_csv(record: RoomRecord) -> str:
    """One row per question and round; columns SUMMARY_COLUMNS (the shift columns on a question's second round)."""
    rows = []
    for result in question_results(record):
        info = result.info
        for r, found in result.rounds.items():
            last = r == max(result.rounds)
            spread = "; ".join(f"{info.option(i) if info else f'option {i + 1}'}: {n}"
                               for i, n in enumerate(found.counts))
            share = "" if found.share_right is None or info is None else f"{found.share_right:.2f}"
            wrong = info.option(result.common_wrong) if last and info and result.common_wrong is not None else ""
            rows.append((record.code, result.question, info.lesson if info else "", info.text if info else "", r,
                         found.answered, found.right if info else "", share, spread, wrong,
                         (result.misconception or "") if last else "",
                         result.wrong_to_right if r == 2 else "", result.right_to_wrong if r == 2 else ""))
    return _csv(SUMMARY_COLUMNS, rows)
