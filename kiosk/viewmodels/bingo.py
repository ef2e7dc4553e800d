"""The bingo session on the touch screens (issue #18): at the booth, packs and paper sold by
audit number, raffle tickets, and bingo prizes paid; at the manager, the game program shown
and edited (a new version each time). Functions taking a Station run on the StationWorker; the
rest are pure. No Kivy here."""

from __future__ import annotations

from dataclasses import dataclass, replace

from kiosk.viewmodels.common import INFO, OK, WARN, Outcome, attempt, cents, money, once
from pos.domain.bingo_program import Game
from pos.domain.money import format_amount
from pos.errors import BadInput
from pos.services import (
    bingo_games,
    bingo_paper,
    bingo_program,
    current_session,
    money_path,
    raffle,
)
from pos.services.station import Station
from pos.services.w2g import Winner

#: Program games whose prizes the booth pays (bingo_games.PAYABLE), by kind name.
PAYABLE = frozenset(kind.value for kind in bingo_games.PAYABLE)

# -- the booth: what it sells -------------------------------------------------------------------


@dataclass(frozen=True)
class SaleItemVM:
    """One thing the booth sells on the bingo screen: a pack, paper of a series, a raffle."""

    kind: str  # "pack", "paper" or "raffle"
    name: str
    price: str  # "$20.00", or "" where the program lists no price
    detail: str  # what is in it, what is left

    @property
    def ident(self) -> str:
        return f"{self.kind}-{self.name}"

    @property
    def title(self) -> str:
        label = {"pack": "Pack", "paper": "Paper", "raffle": "Raffle"}[self.kind]
        return f"{label} {self.name}" + (f" · {self.price}" if self.price else "")

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.detail}"


@dataclass(frozen=True)
class PrizeGameVM:
    number: int
    title: str
    kind: str
    prize: str  # the program's fixed prize as a decimal string, or "" (a pool)
    paid: str = ""  # what was paid for it this session, as a decimal string, or ""

    @property
    def ident(self) -> str:
        return f"game-{self.number}"

    @property
    def text(self) -> str:
        shown = f" · ${self.prize}" if self.prize else ""
        paid = f" · paid ${self.paid}" if self.paid else ""
        return f"{self.number}. {self.title}{shown}{paid}"


@dataclass(frozen=True)
class BingoBoothVM:
    program: str  # "Saturday Night v2", or why there is none
    session_open: bool
    items: tuple[SaleItemVM, ...]
    games: tuple[PrizeGameVM, ...]


def _sheets(count: int) -> str:
    return f"{count:,} sheet{'s' if count != 1 else ''}"


def booth_screen(st: Station) -> BingoBoothVM:
    """Packs (from the program's products, else every pack defined), paper sold apart (the
    program's paper products and progressive paper), with this station's stock; the raffles
    held here still selling; and the program's games whose prizes the booth pays."""
    found = bingo_program.program_in_effect(st)
    stock: dict[str, int] = {}
    for lot in bingo_paper.paper_stock(st):
        if lot.holder == st.id and lot.state == "stock":
            stock[lot.series] = stock.get(lot.series, 0) + lot.sheets
    packs = {p.name: p for p in bingo_paper.list_packs(st)}
    items: list[SaleItemVM] = []
    games: list[PrizeGameVM] = []
    program = "No game program yet: the manager defines it"
    if found is not None:
        parsed, version = found
        program = f"{parsed.name} v{version}"
        listed = [p for p in parsed.products if p.kind.value == "pack" and p.name in packs]
        items += [_pack_item(packs[product.name], stock) for product in listed]
        apart = {p.name: p.price for p in parsed.products if p.kind.value == "paper"}
        for game in parsed.games:
            if game.kind.value == "progressive" and game.paper:
                apart.setdefault(game.paper, game.price)
        for series, price in apart.items():
            items.append(
                SaleItemVM(
                    "paper",
                    series,
                    money(price) if price else "",
                    f"{_sheets(stock.get(series, 0))} here",
                )
            )
        paid: dict[int, int] = {}
        if current_session.open_session_now(st) is not None:
            for prize_paid in bingo_games.session_prizes(st):
                paid[prize_paid.game] = paid.get(prize_paid.game, 0) + prize_paid.amount
        for game in parsed.games:
            if game.kind.value in PAYABLE:
                prize = format_amount(game.prize) if game.prize is not None else ""
                so_far = format_amount(paid[game.number]) if game.number in paid else ""
                games.append(PrizeGameVM(game.number, game.title, game.kind.value, prize, so_far))
    if not any(item.kind == "pack" for item in items):
        items[:0] = [_pack_item(pack, stock) for pack in packs.values()]
    for shown in raffle.list_raffles(st):
        if shown["held_by"] == st.id and shown["stubs"] is None:
            items.append(
                SaleItemVM(
                    "raffle",
                    shown["raffle"],
                    money(cents(shown["price"])),
                    f"{shown['name']} · drawing {shown['drawing_date']} · "
                    f"{shown['tickets_sold'] - shown['tickets_voided']} sold",
                )
            )
    return BingoBoothVM(
        program=program,
        session_open=current_session.open_session_now(st) is not None,
        items=tuple(items),
        games=tuple(games),
    )


def _pack_item(pack: bingo_paper.PackView, stock: dict[str, int]) -> SaleItemVM:
    inside = ", ".join(f"{i['count']} × {i['series']}" for i in pack.items)
    left = min(
        (stock.get(str(i["series"]), 0) // max(1, int(i["count"])) for i in pack.items), default=0
    )
    games = f"{pack.games} · " if pack.games else ""
    return SaleItemVM(
        "pack", pack.name, money(pack.price), f"{games}{inside} · {left:,} packs here"
    )


def _qty(text: str) -> int:
    text = text.strip() or "1"
    if not text.isdigit() or not 0 < int(text) <= 500:
        raise BadInput("qty", f"{text!r}: enter how many, 1 to 500")
    return int(text)


def sell_item(
    st: Station,
    item: SaleItemVM,
    qty: str,
    buyer: str,
    operator: str,
    *,
    attempt_id: str | None = None,
) -> Outcome:
    """Sell `qty` of a pack, paper or raffle tickets; the outcome says the audit numbers (or
    the ticket numbers) that went to the buyer. Once per `attempt_id` (the screen's tap)."""

    def run() -> Outcome:
        count = _qty(qty)
        who = buyer.strip() or None
        if item.kind == "raffle":
            sold = raffle.sell(st, item.name, qty=count, buyer=who, operator=operator)
            numbers = ", ".join(t.number for t in sold.tickets)
            receipts = ", ".join(f"#{t.receipt}" for t in sold.tickets)
            plural = "s" if count > 1 else ""
            return Outcome(
                True,
                f"SOLD {count} × RAFFLE {item.name}",
                f"{money(sold.amount)} · ticket{plural} {numbers} · receipt{plural} {receipts}",
                OK,
                data=(("tickets", tuple(t.number for t in sold.tickets)),),
            )
        if item.kind == "pack":
            sale = bingo_paper.sell_pack(st, item.name, qty=count, buyer=who, operator=operator)
        else:
            sale = bingo_paper.sell_paper(st, item.name, qty=count, buyer=who, operator=operator)
        return Outcome(
            True,
            f"SOLD {sale.qty} × {sale.what}",
            f"{money(sale.amount)} · receipt #{sale.receipt} · audit "
            + ", ".join(sale.audit_numbers),
            OK,
            data=(("receipt", sale.receipt), ("audit", tuple(sale.audit_numbers))),
        )

    return once(st, attempt_id or money_path.new_attempt(), run, "Sale refused")


@dataclass(frozen=True)
class Identity:
    """What a W-2G needs of a winner, as typed at the booth (sealed to the hall's key)."""

    name: str = ""
    address: str = ""
    tin: str = ""
    id_document: str = ""

    @property
    def given(self) -> bool:
        return any(v.strip() for v in (self.name, self.address, self.tin, self.id_document))


def needs_identity(outcome: Outcome) -> bool:
    """The prize was refused for want of the winner's W-2G data: ask for it."""
    return outcome.refusal is not None and outcome.refusal.rule == "W2G"


def pay_prize(
    st: Station,
    game: PrizeGameVM | None,
    amount: str,
    winners: str,
    operator: str,
    identity: Identity | None = None,
    *,
    attempt_id: str | None = None,
) -> Outcome:
    """Pay a bingo game's prize, split between its winners (LIMIT, PAID, B and W2G checked by
    the service); `identity`: the first winner's W-2G data, when the screen asked for it. Once
    per `attempt_id` (the screen's tap)."""

    def run() -> Outcome:
        if game is None:
            raise BadInput("game", "tap the game that was won first")
        if not amount.strip():
            raise BadInput("amount", "enter the prize paid")
        count = winners.strip() or "1"
        ids: list[Winner | None] = []
        if identity is not None and identity.given:
            ids.append(Winner(identity.name, identity.address, identity.tin, identity.id_document))
        paid = bingo_games.pay_prize(
            st,
            game=game.number,
            amount=amount.strip(),
            winners=count,
            identities=ids,
            operator=operator,
        )
        split = f" · {len(paid.shares)} winners: " + ", ".join(
            money(share) for share in paid.shares
        )
        return Outcome(
            True,
            f"PAY {money(paid.amount)}",
            f"Game {paid.game}: {paid.title} · receipt #{paid.receipt}"
            + (split if len(paid.shares) > 1 else "")
            + (" · W-2G data recorded" if paid.reportable else ""),
            OK,
            data=(("receipt", paid.receipt),),
        )

    outcome = once(st, attempt_id or money_path.new_attempt(), run, "DO NOT PAY")
    if needs_identity(outcome):  # the service's sentence names the CLI's options: say it here
        return replace(
            outcome,
            detail=f"{money(cents(amount.strip()))} is reportable on Form W-2G: enter the "
            "winner's name, address, taxpayer ID and photo ID, then PAY again.",
        )
    return outcome


# -- the manager: the game program --------------------------------------------------------------

#: The fields a game row offers for editing, by kind: (program key, label).
EDITABLE: dict[str, tuple[tuple[str, str], ...]] = {
    "decision": (("entry", "Entry per face"), ("fee", "Fee per 3 numbers")),
    "progressive": (("price", "Sheet price"), ("prize", "Prize")),
    "treasure-chest": (("price", "Entry price"),),
    "raffle": (),
}
DEFAULT_FIELDS = (("prize", "Prize"),)


@dataclass(frozen=True)
class GameRowVM:
    number: int
    kind: str
    title: str
    detail: str  # pattern, paper, prize as the program prints them
    fields: tuple[tuple[str, str, str], ...]  # (key, label, current value as a decimal string)

    @property
    def text(self) -> str:
        return f"{self.number}. {self.title} · {self.kind}\n{self.detail}"


@dataclass(frozen=True)
class ProgramVM:
    name: str | None  # None: no program yet
    heading: str
    house_rules: str
    games: tuple[GameRowVM, ...]
    products: str


def _amount(cents_or_none: int | None) -> str:
    return format_amount(cents_or_none) if cents_or_none is not None else ""


def _row(line: bingo_program.GameLine, game: Game) -> GameRowVM:
    """A game as the program screen lists it, with the fields its kind may change."""
    parts = [p for p in (line.pattern, f"paper {line.paper}" if line.paper else "") if p]
    parts.append(line.prize)
    if line.calls is not None:
        parts.append(f"{line.calls} calls now, ${line.pool} now")
    if line.raffle:
        parts.append(f"raffle {line.raffle}")
    values = {
        "price": _amount(game.price),
        "entry": _amount(game.entry),
        "fee": _amount(game.fee),
        "prize": _amount(game.prize),
    }
    fields = tuple(
        (key, label, values[key]) for key, label in EDITABLE.get(line.kind, DEFAULT_FIELDS)
    )
    return GameRowVM(line.number, line.kind, line.title, " · ".join(parts), fields)


def program_screen(st: Station) -> ProgramVM:
    found = bingo_program.program_in_effect(st)
    if found is None:
        return ProgramVM(None, "No game program yet: load its file from a USB stick", "", (), "")
    shown = bingo_program.show_program(st)
    products = " · ".join(
        f"{p.kind} {p.name}" + (f" ${p.price}" if p.price else "") for p in shown.products
    )
    return ProgramVM(
        name=shown.name,
        heading=f"{shown.name} · version {shown.version}"
        + (f" by {shown.defined_by}" if shown.defined_by else "")
        + f" · {len(shown.games)} games",
        house_rules=shown.house_rules,
        games=tuple(
            _row(line, game) for line, game in zip(shown.games, found[0].games, strict=True)
        ),
        products=products or "no products listed",
    )


def load_program(st: Station, path: str, operator: str) -> Outcome:
    def run() -> Outcome:
        from pathlib import Path

        if not path.strip():
            raise BadInput("program", "tap the program file on the USB stick first")
        program = bingo_program.read_program_file(Path(path.strip()))
        shown = bingo_program.create_program(st, program, operator=operator)
        return Outcome(
            True,
            f"PROGRAM {shown.name} v{shown.version}",
            f"{len(shown.games)} games, checked against the prize limits",
            OK,
        )

    return attempt(run, "Program refused")


def edit_game(
    st: Station, name: str, number: int, values: dict[str, str], was: dict[str, str], operator: str
) -> Outcome:
    """A new version of the program with game `number`'s changed fields (the limits checked
    again)."""

    def run() -> Outcome:
        changes = {k: v.strip() for k, v in values.items() if v.strip() != was.get(k, "")}
        if not changes:
            return Outcome(False, "Nothing changed", f"Game {number} is as it was.", WARN)
        shown = bingo_program.edit_program(
            st, name, game=number, changes=changes, operator=operator
        )
        said = ", ".join(f"{k} {v or 'cleared'}" for k, v in sorted(changes.items()))
        return Outcome(True, f"VERSION {shown.version}", f"Game {number}: {said}", OK)

    return attempt(run, "Change refused")


def set_house_rules(st: Station, name: str, text: str, operator: str) -> Outcome:
    def run() -> Outcome:
        shown = bingo_program.edit_program(st, name, house_rules=text, operator=operator)
        return Outcome(True, f"VERSION {shown.version}", "House rules on the program", INFO)

    return attempt(run, "Change refused")


# -- the booth: the session's own games (decision, progressive, treasure chest) ------------------

SESSION_KINDS = ("decision", "progressive", "treasure-chest")


@dataclass(frozen=True)
class ActionVM:
    name: str  # what game_action does
    label: str
    colour: str
    #: for what cannot be undone: what the button says after a first tap ("" records at once)
    confirm: str = ""


@dataclass(frozen=True)
class SessionGameVM:
    number: int
    kind: str
    title: str
    status: str  # where the game stands this session, in plain words
    inputs: tuple[tuple[str, str], ...]  # (key, hint) of the fields its actions read
    actions: tuple[ActionVM, ...]

    @property
    def ident(self) -> str:
        return f"session-game-{self.number}"

    @property
    def text(self) -> str:
        return f"{self.number}. {self.title}"


@dataclass(frozen=True)
class GamesVM:
    program: str
    games: tuple[SessionGameVM, ...]


def _decision_status(view: bingo_games.DecisionView) -> str:
    if view.announced:
        return view.announcement
    retained = f" · ${view.retained} retained" if cents(view.retained) else ""
    return (
        f"${view.entry} a face, ${view.fee} a card for each 3 numbers · "
        f"{view.faces} faces, {view.rounds} fee rounds · paid in ${view.paid_in} · "
        f"prize ${view.prize} (limit ${view.limit}){retained}"
    )


def _progressive_status(view: bingo_games.ProgressiveView, session: str) -> str:
    """Where a progressive game stands: its prize and calls, or, once played this session,
    its result and what the next session plays for (I3, I5, I6; the screen shows no rule
    codes)."""
    paper = f" · paper {view.paper}" + (f" at ${view.price}" if view.price else "")
    played = [h for h in view.history if h["session"] == session]
    if not played:
        return f"${view.prize} in {view.calls} numbers{paper}"
    last = played[-1]
    result = (
        "won within its calls"
        if last["won"]
        else "not won within its calls: played on as a regular game"
    )
    return (
        f"This session: ${last['prize']} in {last['calls']} numbers, {result} · next session: "
        f"${last['next_prize']} in {last['next_calls']} numbers{paper}"
    )


def _chest_status(view: bingo_games.ChestView) -> str:
    chosen = ", ".join(f"via game {p['via_game']}" for p in view.participants) or "none yet"
    tried = "; ".join(
        f"opened (${o['prize']})" if o["opened"] else "not opened, every key tried"
        for o in view.outcomes
    )
    return f"{view.sold} entries, ${view.gross} in treasure chest sales · participant: {chosen}" + (
        f" · {tried}" if tried else ""
    )


def _session_game(st: Station, game: Game) -> SessionGameVM:
    kind = game.kind.value
    if kind == "decision":
        status = _decision_status(bingo_games.decision_status(st, game=game.number))
        inputs: tuple[tuple[str, str], ...] = (
            ("count", "Faces or cards"),
            ("player", "Player card"),
        )
        actions: tuple[ActionVM, ...] = (
            ActionVM("enter", "Enter faces", OK),
            ActionVM("fees", "Fee round", OK),
            ActionVM("announce", "Announce prize", INFO),
        )
    elif kind == "progressive":
        [view] = [
            v for v in bingo_games.progressive_posting(st, game.name) if v.game == game.number
        ]
        session = current_session.open_session_now(st)
        status = _progressive_status(view, session.id if session else "")
        inputs = ()
        actions = (
            ActionVM("won", "Won in the calls", OK),
            ActionVM("not-won", "Not won", WARN, confirm="Not won: tap again to record it"),
        )
    else:
        status = _chest_status(bingo_games.chest_status(st, game=game.number))
        inputs = (
            ("count", "Entries"),
            ("via", "Won game no."),
            ("player", "Player card"),
            ("prize", "Prize $ in the chest"),
        )
        actions = (
            ActionVM("sell", "Sell", OK),
            ActionVM("participant", "Participant", INFO),
            ActionVM("opened", "Opened", OK),
            # then every key is tried (H5): final, so a second tap records it
            ActionVM("keys", "Not opened", WARN, confirm="Not opened: tap again to record it"),
        )
    return SessionGameVM(game.number, kind, game.title, status, inputs, actions)


def games_screen(st: Station) -> GamesVM:
    """The program's decision, progressive and treasure chest games, each with where it stands
    in the open session and what the booth records for it."""
    found = bingo_program.program_in_effect(st)
    if found is None:
        return GamesVM("No game program yet: the manager defines it", ())
    program, version = found
    if current_session.open_session_now(st) is None:
        return GamesVM(f"{program.name} v{version} · no session open", ())
    games = tuple(
        _session_game(st, game) for game in program.games if game.kind.value in SESSION_KINDS
    )
    return GamesVM(f"{program.name} v{version}", games)


def game_action(
    st: Station,
    game: SessionGameVM,
    action: str,
    inputs: dict[str, str],
    operator: str,
    *,
    attempt_id: str | None = None,
) -> Outcome:
    """Record what happened in a session game: decision entries, fee rounds and the announced
    prize (G2-G5); a progressive game won or not (I5, I6); treasure chest entries, its
    participant (H3) and the keys' outcome (H5)."""

    def given(key: str) -> str:
        text = inputs.get(key, "").strip()
        if not text:
            hint = dict(game.inputs).get(key, key)
            raise BadInput(key, f"enter {hint.lower()} first")
        return text

    player = inputs.get("player", "").strip() or None  # checked for rule D

    def run() -> Outcome:
        n = game.number
        if action in ("enter", "fees", "announce"):
            if action == "enter":
                view = bingo_games.decision_enter(
                    st, game=n, faces=given("count"), buyer=player, operator=operator
                )
            elif action == "fees":
                view = bingo_games.decision_fees(
                    st, game=n, cards=given("count"), operator=operator
                )
            else:
                view = bingo_games.decision_announce(st, game=n, operator=operator)
                return Outcome(True, "ANNOUNCE", view.announcement, INFO, shout=f"${view.prize}")
            return Outcome(True, f"GAME {n}: PAID IN ${view.paid_in}", _decision_status(view), OK)
        if action in ("won", "not-won"):
            played = bingo_games.progressive_result(
                st, game=n, won=action == "won", operator=operator
            )
            nxt = played.history[-1]
            return Outcome(
                True,
                "WON: PAY THE PRIZE" if action == "won" else "NOT WON: PLAY ON AS REGULAR",
                f"Next session: {nxt['next_calls']} numbers for ${nxt['next_prize']}",
                OK if action == "won" else WARN,
            )
        if action == "sell":
            chest = bingo_games.chest_sell(
                st, game=n, qty=given("count"), buyer=player, operator=operator
            )
            return Outcome(True, f"{chest.sold} ENTRIES", _chest_status(chest), OK)
        if action == "participant":
            chest = bingo_games.chest_participant(
                st, game=n, via=given("via"), player=player, operator=operator
            )
            return Outcome(True, "PARTICIPANT CHOSEN", _chest_status(chest), INFO)
        if action in ("opened", "keys"):
            chest = bingo_games.chest_outcome(
                st,
                game=n,
                opened=action == "opened",
                every_key_tried=action == "keys",
                prize=inputs.get("prize", "").strip() or None if action == "opened" else None,
                operator=operator,
            )
            return Outcome(True, "RECORDED", _chest_status(chest), INFO)
        raise BadInput("action", f"{action!r} is not something this game records")

    return once(st, attempt_id or money_path.new_attempt(), run, "Not recorded")
