"""The games of a bingo session played at the booth (issue #18; rules LIMIT, B, W2G, G2-G5, H3-H5,
I3-I7, J5): prizes paid, decision bingo, progressive games and the treasure chest.

What it offers (stable names; the screens build on them):

- `pay_prize(st, game=, amount=, winners=1, identities=(), players=(), as_regular=False,
   operator=, manager=None, reason=None)` -> PrizeView
                                              a bingo prize paid at the booth: split between
                                              winners, W-2G data at the threshold, the limit
                                              checked (LIMIT, I7, G4), claimed on the game date (B),
                                              no named winner working the session (D)
- `decision_enter(st, game=, faces=, buyer=None, operator=, manager=None, reason=None)`
                                              -> DecisionView   entries per card face (G2, D)
- `decision_fees(st, game=, cards=, operator=)` -> DecisionView     a round of fees per three
                                                                    numbers per card (G3)
- `decision_announce(st, game=, operator=)` -> DecisionView         the prize announced (G4, G5)
- `decision_status(st, game=, session=None)` -> DecisionView
- `session_prizes(st, session=None)` -> list[PaidPrize]    the prizes paid in a session
- `progressive_result(st, game=, won=, operator=)` -> ProgressiveView
                                              not won: calls +1 next session (I5), played on as
                                              a regular game (I6); the pool carries as events
- `progressive_posting(st, name=None)` -> list[ProgressiveView]    what I3 posts
- `chest_sell(st, game=, qty=, buyer=None, operator=, manager=None, reason=None)` -> ChestView
                                              treasure chest entries (H4, D)
- `chest_participant(st, game=, via=, player=, operator=, manager=None, reason=None)`
                                              -> ChestView   chosen through another game of the
                                              same session (H3), not working it (D)
- `chest_outcome(st, game=, opened=, keys_tried=, every_key_tried=, prize=, operator=)`
                                              -> ChestView   the keys' outcome (H5)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pos.domain.bingo_program import Game, GameKind, decision_pool, progressive_growth, split
from pos.domain.checks import bingo as bingo_checks
from pos.domain.money import CENTS, format_amount, parse_amount, parse_count
from pos.errors import BadInput, NotFound, refuse
from pos.ledger.projections import bingo_games as games_read
from pos.ledger.projections import bingo_paper as paper_read
from pos.ledger.projections import prizes as prizes_read
from pos.services.bingo_program import require_game, require_program
from pos.services.current_session import hall_date, require_open_session
from pos.services.eligibility import BingoPlayers, refusals_recorded
from pos.services.inputs import checked_input, read_input_text
from pos.services.money_path import prize_unpaid, session_for_money
from pos.services.numbering import next_receipt_number
from pos.services.settings import rulebook_settings
from pos.services.station import Station
from pos.services.w2g import Winner, identity_for

PAYABLE = (
    GameKind.REGULAR,
    GameKind.SPECIAL,
    GameKind.JACKPOT,
    GameKind.WINGO,
    GameKind.PROGRESSIVE,
    GameKind.DECISION,
)


@dataclass(frozen=True)
class PrizeView:
    session: str
    game: int
    title: str
    kind: str
    amount: int = field(metadata=CENTS)
    shares: list[int] = field(metadata=CENTS)  # each winner's share, adding up to `amount`
    reportable: int = 0  # winners whose share needed a W-2G
    receipt: int = 0
    event: str = ""


@dataclass(frozen=True)
class DecisionView:
    session: str
    game: int
    title: str
    entry: str  # per card face (G2)
    fee: str  # per three numbers per card (G3)
    faces: int
    entries: str
    rounds: int
    fees: str
    paid_in: str
    prize: str  # what the winner is paid: capped at the limit (G4)
    retained: str  # the excess the organisation keeps (G4)
    limit: str
    announced: bool
    announcement: str  # the words to show and print before paying (G5)


@dataclass(frozen=True)
class ProgressiveView:
    name: str
    game: int | None
    pattern: str
    calls: int  # numbers called for the progressive prize this session (I3, I5)
    prize: str  # the progressive prize now (I3, I7)
    price: str | None  # the price of its paper (I4)
    paper: str
    history: list[dict[str, Any]] = field(default_factory=list)
    continues_as_regular: bool = False  # I6: not won within the calls this session


@dataclass(frozen=True)
class ChestView:
    session: str
    game: int
    title: str
    sold: int
    gross: str
    participants: list[dict[str, Any]]
    outcomes: list[dict[str, Any]]
    prizes: str


def _amount(text: str | int, field_name: str = "amount") -> int:
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    with checked_input(field_name):
        return parse_amount(str(text), field_name)


def _game_number(number: int | str) -> int:
    with checked_input("game"):
        return parse_count(number, "game", maximum=1000)


def _session_game(st: Station, number: int | str, *kinds: GameKind) -> tuple[Any, Game, int]:
    game_number = _game_number(number)
    session = session_for_money(st)
    program, version = require_program(st)
    return session, require_game(program, game_number, *kinds), version


def read_winners_file(path: Path) -> list[Winner | None]:
    """Each winner's W-2G data from a JSON list, in the order of the shares: objects with
    name, address, tin and id, or null for a winner whose share is under the threshold."""
    text = read_input_text(path, "winners-file", limit=64 * 1024)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadInput("winners-file", f"{path} is not JSON: {exc}") from None
    if not isinstance(data, list):
        raise BadInput("winners-file", "give a JSON list, one entry per winner")
    out: list[Winner | None] = []
    for index, item in enumerate(data):
        if item is None:
            out.append(None)
            continue
        if not isinstance(item, dict):
            raise BadInput("winners-file", f"entry {index} is not an object or null")
        out.append(
            Winner(
                str(item.get("name", "")),
                str(item.get("address", "")),
                str(item.get("tin", "")),
                str(item.get("id", "")),
            )
        )
    return out


# --- prizes ------------------------------------------------------------------------------------


def pay_prize(
    st: Station,
    *,
    game: int | str,
    amount: str | int,
    winners: int | str = 1,
    identities: Sequence[Winner | None] = (),
    players: Sequence[str] = (),
    as_regular: bool = False,
    operator: str | None,
    manager: str | None = None,
    reason: str | None = None,
) -> PrizeView:
    """Pay a bingo game's prize at the booth, split evenly between its winners. Refused above
    the game's limit (LIMIT; a progressive's pool, I7; a decision game's announced prize, G4,
    G5), after the game date (B), or a share at the W-2G threshold without the winner's data
    (W2G: `identities[i]` for winner i), or to a named winner working the session (D: they may
    not play it; a near match needs `manager` and `reason`)."""
    by = st.operator(operator, "redeemer", "seller")
    cents = _amount(amount)
    with checked_input("winners"):
        count = parse_count(winners, "winners", maximum=1000)
    settings = rulebook_settings(st)
    with refusals_recorded(st), st.ledger.transaction():
        session, found, version = _session_game(st, game, *PAYABLE)
        conn = st.ledger.conn
        refuse(bingo_checks.claimed_on_game_date(session.game_date, hall_date(st, st.clock.now())))
        prize_unpaid(
            st,
            prizes_read.bingo_prize(session.id, found.number),
            f"game {found.number} ({found.title})",
        )
        regular = as_regular
        if found.kind is GameKind.DECISION:
            totals = games_read.decision_totals(conn, session.id, found.number)
            refuse(
                bingo_checks.decision_payment(
                    found,
                    cents,
                    announced=totals.announced_prize,
                    limit=settings.regular_prize_limit,
                    already_paid=games_read.game_prizes(conn, session.id, found.number),
                )
            )
        else:
            pool = None
            if found.kind is GameKind.PROGRESSIVE:
                state = games_read.progressive(conn, found.name)
                pool = state.pool if state else found.prize
                plays = games_read.progressive_plays(conn, [session.id], found.name)
                refuse(bingo_checks.progressive_result_recorded(found, recorded=bool(plays)))
                if not plays[-1].won:
                    regular = True  # I6: not won within the calls: a regular prize
                else:
                    pool = plays[-1].pool  # won: the prize posted when it was played
            refuse(
                bingo_checks.prize_limit(
                    found,
                    cents,
                    settings,
                    jackpots_paid_today=games_read.jackpots_paid_on(conn, session.game_date),
                    as_regular=regular,
                    progressive_pool=pool,
                    already_paid=(
                        games_read.game_prizes(conn, session.id, found.number)
                        if found.kind is GameKind.PROGRESSIVE and not regular
                        else 0
                    ),
                    raised_paid=games_read.games_paid_above(
                        conn, session.id, settings.regular_prize_limit
                    ),
                )
            )
        shares = split(cents, count)
        people = list(players) + [""] * (count - len(players))
        ids = list(identities) + [None] * (count - len(identities))
        winner_bodies = []
        not_working = BingoPlayers(st, session, by.badge, manager, reason)
        for share, player, identity in zip(shares, people, ids, strict=False):
            entry: dict[str, Any] = {"share": share}
            code = not_working.check(player, f"game {found.number}'s prize")
            if code:
                entry["player"] = code
            sealed = identity_for(st, share, identity)
            if sealed is not None:
                entry["w2g"] = sealed
            winner_bodies.append(entry)
        number = next_receipt_number(st)
        body = {
            "session": session.id,
            "game_date": session.game_date,
            "game": found.number,
            "kind": found.kind.value,
            "name": found.title,
            "amount": cents,
            "winners": winner_bodies,
            "as_regular": regular,
            "program_version": version,
            "receipt": number,
            "by": by.badge,
            "lines": [
                {"text": f"Game {found.number}: {found.title}", "amount": cents},
                *(
                    {"text": f"  winner {i + 1} of {count}", "amount": s}
                    for i, s in enumerate(shares)
                    if count > 1
                ),
            ],
        }
        event = st.append("BingoPrizePaid", body)
    return PrizeView(
        session=session.id,
        game=found.number,
        title=found.title,
        kind=found.kind.value,
        amount=cents,
        shares=list(shares),
        reportable=sum(1 for w in winner_bodies if "w2g" in w),
        receipt=number,
        event=f"{event.origin}:{event.seq}",
    )


@dataclass(frozen=True)
class PaidPrize:
    session: str
    game: int
    title: str
    kind: str
    amount: int = field(metadata=CENTS)
    winners: int
    as_regular: bool  # a progressive game played on as a regular game (I6)
    w2g: int  # winners whose share needed a W-2G
    station: str
    receipt: int | None
    paid_by: str | None


def session_prizes(st: Station, session: str | None = None) -> list[PaidPrize]:
    """The bingo prizes paid in a session (default: the one open now), oldest first."""
    chosen = session or require_open_session(st).id
    return [
        PaidPrize(
            p.session,
            p.game,
            p.name,
            p.kind,
            p.amount,
            p.winners,
            p.as_regular,
            p.reportable,
            p.origin,
            p.receipt,
            p.by,
        )
        for p in games_read.prizes_paid(st.ledger.conn, [chosen])
    ]


# --- decision bingo (G) -----------------------------------------------------------------------


def _decision_view(st: Station, game: Game, session: str) -> DecisionView:
    totals = games_read.decision_totals(st.ledger.conn, session, game.number)
    limit = rulebook_settings(st).regular_prize_limit
    pool = decision_pool(totals.entries, totals.fees, limit=limit)
    announced = totals.announced_prize is not None
    prize = totals.announced_prize if announced else pool.prize
    retained = totals.announced_retained if announced else pool.retained
    assert prize is not None and retained is not None
    words = (
        f"Game {game.number}, {game.title}: the prize is ${format_amount(prize)}"
        + (
            f" (${format_amount(pool.paid_in)} paid in; ${format_amount(retained)} above the "
            f"${format_amount(limit)} limit is retained by the organisation)"
            if retained
            else f" (${format_amount(pool.paid_in)} paid in)"
        )
        + "."
    )
    return DecisionView(
        session=session,
        game=game.number,
        title=game.title,
        entry=format_amount(game.entry or 0),
        fee=format_amount(game.fee or 0),
        faces=totals.faces,
        entries=format_amount(totals.entries),
        rounds=totals.rounds,
        fees=format_amount(totals.fees),
        paid_in=format_amount(pool.paid_in),
        prize=format_amount(prize),
        retained=format_amount(retained),
        limit=format_amount(limit),
        announced=announced,
        announcement=words,
    )


def decision_enter(
    st: Station,
    *,
    game: int | str,
    faces: int | str,
    buyer: str | None = None,
    operator: str | None,
    manager: str | None = None,
    reason: str | None = None,
) -> DecisionView:
    """G2: players enter by paying the program's amount for each card face in play; a buyer
    working the session is refused (D)."""
    by = st.operator(operator, "seller")
    with checked_input("faces"):
        count = parse_count(faces, "faces", maximum=10_000)
    with refusals_recorded(st), st.ledger.transaction():
        session, found, _ = _session_game(st, game, GameKind.DECISION)
        totals = games_read.decision_totals(st.ledger.conn, session.id, found.number)
        if totals.announced_prize is not None:
            raise BadInput("game", f"game {found.number}'s prize was announced: no more entries")
        not_working = BingoPlayers(st, session, by.badge, manager, reason)
        buyer_code = not_working.check(buyer, f"decision game {found.number}")
        entry = found.entry or 0
        number = next_receipt_number(st)
        st.append(
            "DecisionEntered",
            {
                "session": session.id,
                "game": found.number,
                "faces": count,
                "entry": entry,
                "amount": entry * count,
                "receipt": number,
                "buyer": buyer_code,
                "by": by.badge,
                "lines": [
                    {
                        "text": f"Decision bingo, game {found.number}: faces @ "
                        f"${format_amount(entry)}",
                        "qty": count,
                        "amount": entry * count,
                    }
                ],
            },
        )
        return _decision_view(st, found, session.id)


def decision_fees(
    st: Station, *, game: int | str, cards: int | str, operator: str | None
) -> DecisionView:
    """G3: a round of fees: the program's fee for each card in play, for each set of three
    numbers called; refused (G3) for more cards than the faces entered."""
    by = st.operator(operator, "seller")
    with checked_input("cards"):
        count = parse_count(cards, "cards", maximum=10_000)
    with st.ledger.transaction():
        session, found, _ = _session_game(st, game, GameKind.DECISION)
        totals = games_read.decision_totals(st.ledger.conn, session.id, found.number)
        if totals.announced_prize is not None:
            raise BadInput("game", f"game {found.number}'s prize was announced: no more fees")
        refuse(bingo_checks.decision_fee_cards(found, count, faces_entered=totals.faces))
        fee = found.fee or 0
        st.append(
            "DecisionFeesCollected",
            {
                "session": session.id,
                "game": found.number,
                "round": games_read.last_decision_round(st.ledger.conn, session.id, found.number)
                + 1,
                "cards": count,
                "fee": fee,
                "amount": fee * count,
                "by": by.badge,
            },
        )
        return _decision_view(st, found, session.id)


def decision_announce(st: Station, *, game: int | str, operator: str | None) -> DecisionView:
    """G4, G5: the prize (the fees paid in, at most the regular prize limit) is announced before
    it is paid; what is above the limit is retained by the organisation."""
    by = st.operator(operator, "seller")
    with st.ledger.transaction():
        session, found, _ = _session_game(st, game, GameKind.DECISION)
        totals = games_read.decision_totals(st.ledger.conn, session.id, found.number)
        pool = decision_pool(
            totals.entries, totals.fees, limit=rulebook_settings(st).regular_prize_limit
        )
        if pool.paid_in == 0:
            raise BadInput("game", f"game {found.number} has no entries or fees yet")
        st.append(
            "DecisionPrizeAnnounced",
            {
                "session": session.id,
                "game": found.number,
                "paid_in": pool.paid_in,
                "prize": pool.prize,
                "retained": pool.retained,
                "by": by.badge,
            },
        )
        return _decision_view(st, found, session.id)


def decision_status(st: Station, *, game: int | str, session: str | None = None) -> DecisionView:
    program, _ = require_program(st)
    found = require_game(program, _game_number(game), GameKind.DECISION)
    return _decision_view(st, found, session or require_open_session(st).id)


# --- progressive (I) ---------------------------------------------------------------------------


def _progressive_view(st: Station, game: Game, session: str | None) -> ProgressiveView:
    conn = st.ledger.conn
    state = games_read.progressive(conn, game.name)
    plays = games_read.progressive_history(conn, game.name)
    this = [p for p in plays if p.session == session] if session else []
    shown = this[-1] if this else None
    return ProgressiveView(
        name=game.name,
        game=game.number,
        pattern=game.pattern,
        calls=shown.calls if shown else (state.calls if state else game.calls or 0),
        prize=format_amount(shown.pool if shown else (state.pool if state else game.prize or 0)),
        price=format_amount(game.price) if game.price is not None else None,
        paper=game.paper,
        history=[
            {
                "session": p.session,
                "won": p.won,
                "calls": p.calls,
                "prize": format_amount(p.pool),
                "next_calls": p.next_calls,
                "next_prize": format_amount(p.next_pool),
            }
            for p in plays
        ],
        continues_as_regular=bool(shown and not shown.won),
    )


def progressive_result(
    st: Station, *, game: int | str, won: bool, operator: str | None
) -> ProgressiveView:
    """Record a progressive game's result this session. Won within its calls: the prize is paid
    (booth bingo pay) and the game starts again at its program's calls and prize. Not won: the
    calls go up by one for the next session (I5), the prize grows by the program's increase (at
    most half this session's sales of its paper and the limit), and the game is played on as a
    regular game for a regular prize (I6)."""
    by = st.operator(operator, "manager", "seller")
    settings = rulebook_settings(st)
    with st.ledger.transaction():
        session, found, _ = _session_game(st, game, GameKind.PROGRESSIVE)
        conn = st.ledger.conn
        if games_read.progressive_plays(conn, [session.id], found.name):
            raise BadInput("game", f"{found.name}'s result this session is already recorded")
        state = games_read.progressive(conn, found.name)
        calls = state.calls if state else found.calls or 1
        pool = state.pool if state else found.prize or 0
        if won:
            next_calls, next_pool = found.calls or calls, found.prize or 0
        else:
            sales = paper_read.series_sales(conn, found.paper, session.id)
            growth = progressive_growth(
                found.increase, sales, limit=settings.progressive_increase_limit
            )
            next_calls = min(calls + 1, 75)
            next_pool = min(pool + growth, settings.progressive_prize_limit)
        st.append(
            "ProgressivePlayed",
            {
                "session": session.id,
                "game": found.number,
                "name": found.name,
                "won": won,
                "calls": calls,
                "pool": pool,
                "next_calls": next_calls,
                "next_pool": next_pool,
                "by": by.badge,
            },
        )
        return _progressive_view(st, found, session.id)


def progressive_posting(st: Station, name: str | None = None) -> list[ProgressiveView]:
    """I3: each progressive game of the program in effect, its prize and its number of calls as
    they stand (from the ledger), with its history; for the posting and the program."""
    program, _ = require_program(st)
    games = [g for g in program.games_of(GameKind.PROGRESSIVE) if name in (None, g.name)]
    if name and not games:
        raise NotFound(f"no progressive game {name!r} on program {program.name!r}")
    return [_progressive_view(st, g, None) for g in games]


# --- treasure chest (H) -------------------------------------------------------------------------


def _chest_view(st: Station, game: Game, session: str) -> ChestView:
    totals = games_read.chest_totals(st.ledger.conn, session, game.number)
    return ChestView(
        session=session,
        game=game.number,
        title=game.title,
        sold=totals.sold,
        gross=format_amount(totals.gross),
        participants=totals.participants,
        outcomes=[
            {
                "opened": bool(o["opened"]),
                "keys_tried": o["keys_tried"],
                "every_key_tried": bool(o["every_key"]),
                "prize": format_amount(int(o["prize"])),
            }
            for o in totals.outcomes
        ],
        prizes=format_amount(totals.prizes),
    )


def chest_sell(
    st: Station,
    *,
    game: int | str,
    qty: int | str = 1,
    buyer: str | None = None,
    operator: str | None,
    manager: str | None = None,
    reason: str | None = None,
) -> ChestView:
    """Treasure chest entries at the program's price: treasure chest/raffle sales (H4); a buyer
    working the session is refused (D)."""
    by = st.operator(operator, "seller")
    with checked_input("qty"):
        count = parse_count(qty, "qty", maximum=1000)
    with refusals_recorded(st), st.ledger.transaction():
        session, found, _ = _session_game(st, game, GameKind.TREASURE_CHEST)
        if not found.price:
            raise BadInput("game", f"the program lists no price for {found.title}")
        not_working = BingoPlayers(st, session, by.badge, manager, reason)
        buyer_code = not_working.check(buyer, f"{found.title} (game {found.number})")
        number = next_receipt_number(st)
        st.append(
            "ChestSold",
            {
                "session": session.id,
                "game": found.number,
                "qty": count,
                "price": found.price,
                "amount": found.price * count,
                "receipt": number,
                "buyer": buyer_code,
                "by": by.badge,
                "lines": [
                    {
                        "text": f"{found.title} @ ${format_amount(found.price)}",
                        "qty": count,
                        "amount": found.price * count,
                    }
                ],
            },
        )
        return _chest_view(st, found, session.id)


def chest_participant(
    st: Station,
    *,
    game: int | str,
    via: int | str,
    player: str | None = None,
    operator: str | None,
    manager: str | None = None,
    reason: str | None = None,
) -> ChestView:
    """H3: the participant is chosen through another authorised game of the same session: the
    winner of game `via` of the program in effect, whose prize was paid in this session. A
    participant working the session is refused (D)."""
    by = st.operator(operator, "seller", "manager")
    with checked_input("via"):
        via_number = parse_count(via, "via", maximum=1000)
    with refusals_recorded(st), st.ledger.transaction():
        session, found, _ = _session_game(st, game, GameKind.TREASURE_CHEST)
        program, _ = require_program(st)
        via_game = program.game(via_number)
        winner = via_game is not None and games_read.game_has_winner(
            st.ledger.conn, session.id, via_number
        )
        refuse(
            bingo_checks.chest_participant(
                found, via_game, via_number, winner_recorded=winner, session=session.id
            )
        )
        not_working = BingoPlayers(st, session, by.badge, manager, reason)
        code = not_working.check(player, f"{found.title} (game {found.number})")
        st.append(
            "ChestParticipantChosen",
            {
                "session": session.id,
                "game": found.number,
                "via_game": via_number,
                "player": code,
                "by": by.badge,
            },
        )
        return _chest_view(st, found, session.id)


def chest_outcome(
    st: Station,
    *,
    game: int | str,
    opened: bool,
    keys_tried: int | str = 1,
    every_key_tried: bool = False,
    prize: str | None = None,
    operator: str | None,
) -> ChestView:
    """H5: the outcome of trying the keys: opened by the participant (and the prize paid), or
    not, and then every key tried until the right one opened it."""
    by = st.operator(operator, "seller", "manager")
    with checked_input("keys"):
        keys = parse_count(keys_tried, "keys", minimum=1, maximum=1000)
    cents = _amount(prize, "prize") if prize else 0
    with st.ledger.transaction():
        session, found, _ = _session_game(st, game, GameKind.TREASURE_CHEST)
        chest = games_read.chest_totals(st.ledger.conn, session.id, found.number)
        if not chest.participants:
            raise BadInput("game", f"no participant was chosen for {found.title} (H3) yet")
        refuse(bingo_checks.chest_outcome(opened=opened, every_key_tried=every_key_tried))
        if cents and not opened:
            raise BadInput("prize", "the chest was not opened by the participant: no prize")
        if opened and cents:
            prize_unpaid(
                st,
                prizes_read.chest_prize(session.id, found.number),
                f"the treasure chest of game {found.number} in session {session.id}",
            )
        st.append(
            "ChestOpened",
            {
                "session": session.id,
                "game": found.number,
                "opened": opened,
                "keys_tried": keys,
                "every_key_tried": every_key_tried,
                "prize": cents,
                "by": by.badge,
            },
        )
        return _chest_view(st, found, session.id)


def chest_status(st: Station, *, game: int | str, session: str | None = None) -> ChestView:
    program, _ = require_program(st)
    found = require_game(program, _game_number(game), GameKind.TREASURE_CHEST)
    return _chest_view(st, found, session or require_open_session(st).id)
