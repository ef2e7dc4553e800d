"""booth serve, booth sync ... (registered through the `booth.commands` entry point)."""

from __future__ import annotations

import os
import signal
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pos.cli import owner_start
from pos.cli.common import emit, json_option, local_only, operator_option, reads, state
from pos.cli.progress import progress_bar, rebuild_lines
from pos.domain import peer_release
from pos.errors import BadInput, IntegrityFailure
from pos.ledger import heads, replication, restored
from pos.services.station import Station

if TYPE_CHECKING:
    from sync.upstream import UpstreamSettings


WEB_INTERVAL = 1.0  # seconds between replication rounds while the web app serves


def start_web(st: Station, address: str) -> Any:
    """The manager's phone (the `booth.web` plugin, web/) for this station on ADDRESS:PORT."""
    from pos import plugins

    return plugins.load("booth.web", "https")(st, address)


def _static_peers(st: Station) -> list[str]:
    return replication.peer_urls(st.ledger.conn, source="static")


@click.command()
@click.option("--port", type=int, default=8701, show_default=True)
@click.option(
    "--interface",
    "address",
    default="127.0.0.1",
    show_default=True,
    help="The IPv4 address to serve and announce on.",
)
@click.option(
    "--interval",
    type=float,
    default=5.0,
    show_default=True,
    help="Seconds between replication rounds.",
)
@click.option("--no-discovery", is_flag=True, help="Use only the listed peers.")
@click.option(
    "--web",
    metavar="ADDRESS:PORT",
    help="Also serve the manager's phone, a read-only web app over HTTPS (e.g. 0.0.0.0:8443); "
    "replication rounds then come every second unless --interval says otherwise.",
)
@click.option(
    "--upstream-interval",
    type=float,
    default=60.0,
    show_default=True,
    help="Seconds between pushes to the head-office upstream, when one is set.",
)
@click.pass_context
@local_only
def serve(
    ctx: click.Context,
    port: int,
    address: str,
    interval: float,
    no_discovery: bool,
    web: str | None,
    upstream_interval: float,
) -> None:
    """Run discovery, the replication server and the replicator, with no UI.

    While it runs, every other `booth` command on this station is sent to it over the
    station's control socket and runs on its worker."""
    from pos.cli.control import ControlServer
    from pos.services.worker import StationWorker
    from sync.service import SyncService

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    hall = state(ctx).hall
    source = ctx.get_parameter_source("interval")
    if web and source is not None and source.name == "DEFAULT":
        interval = WEB_INTERVAL  # the phone shows a booth's sale within 2 s
    web_app: Any = None
    # Until its control socket listens, a command waits for this owner (pos/cli/owner_start).
    start_up = ExitStack()
    start_up.enter_context(owner_start.starting(hall))
    worker = StationWorker(
        lambda: Station(hall, progress=rebuild_lines(lambda line: click.echo(line, err=True))),
        name="booth-serve",
    )
    service: SyncService | None = None
    control: ControlServer | None = None
    try:
        st = worker.wait_open(timeout=None)
        service = SyncService(
            st,
            port=port,
            address=address,
            static_peers=worker.call(_static_peers),
            interval=interval,
            discover=not no_discovery,
            upstream_interval=upstream_interval,
        )
        worker.job_lock = service.write_lock
        service.start()
        if web:
            web_app = start_web(st, web)
        control = ControlServer(st.directory, worker)
        control.start()
        start_up.close()
        click.echo(
            f"Serving {st.id} of hall {st.config.hall} on https://{address}:{service.port}",
            err=True,
        )
        if web_app is not None:
            click.echo(f"The manager's phone: {web_app.url} (pair with 'booth web pair')", err=True)
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
    finally:
        start_up.close()
        if control is not None:
            control.stop()
        if web_app is not None:
            web_app.stop()
        if service is not None:
            service.stop()
        worker.stop()


@click.group()
def sync() -> None:
    """LAN replication with the hall's other stations."""


@sync.command("now")
@click.option("--peer", "peers", multiple=True, help="A peer URL (default: every known peer).")
@json_option
@click.pass_context
def sync_now(ctx: click.Context, peers: tuple[str, ...]) -> None:
    """One pull from every known peer (or those named); returns when done."""
    from pos.errors import IntegrityFailure
    from sync.client import Peer, client_context
    from sync.replicator import pull, record_contact, summary

    results: list[dict[str, Any]] = []
    failed = False
    refused = 0
    with state(ctx).open_station() as st:
        urls = list(peers) or replication.peer_urls(st.ledger.conn)
        if not urls:
            raise BadInput("peer", "no peers known: give --peer URL or 'booth sync peer add'")
        context = client_context(st.directory)
        for url in urls:
            peer = Peer(url, context)
            try:
                with progress_bar(ctx, f"Pulling from {url}") as progress:
                    result = pull(st.ledger, peer, progress=progress, wall=st.clock)
                # it answered: a release it did not say is a peer before 0.2.0
                told = peer_release.peer_release(peer_release.as_told(result.release))
                results.append({**summary(result), "release_text": told.text})
                refused += result.refused
                with st.ledger.transaction():
                    record_contact(
                        st.ledger,
                        url,
                        station=result.station,
                        error=_refused_note(result.refused, result.refused_events),
                        pulled=result.applied,
                        source="static",
                        heads=result.heads,
                        release=result.release,
                        clock_offset_ms=result.clock_offset_ms,
                    )
            except Exception as exc:
                message = getattr(exc, "message", str(exc))
                results.append({"peer": url, "error": message})
                failed = True
            finally:
                peer.close()
    emit(ctx, results, lambda: "\n".join(_pull_lines(r) for r in results))
    if refused:
        # loud: a peer sent events that fail verification (signature, chain or body)
        click.echo(
            f"booth: {refused} event(s) from peers refused, nothing of them stored (each "
            "recorded as an incident; see 'booth exception list'); the rest was taken in",
            err=True,
        )
        ctx.exit(IntegrityFailure.exit_code)
    if failed:
        ctx.exit(3)


def _refused_note(refused: int, events: list[str]) -> str | None:
    """What `sync status` shows of a pull that refused events (None: nothing refused)."""
    if not refused:
        return None
    return f"refused {refused} event(s): {', '.join(events)}"


def _pull_lines(r: dict[str, Any]) -> str:
    if "error" in r:
        return f"{r['peer']}: ERROR {r['error']}"
    line = f"{r['peer']}: {r['applied']} new of {r['received']} from {r['station']}"
    line += _release_and_clock(r["release_text"], r.get("clock_offset_ms"))
    if r["refused"]:
        line += f"; REFUSED {r['refused']}: " + "; ".join(r["refusals"])
    if r.get("restarted"):
        line += f"\n  started over: {r['restarted']}"
    if r.get("caught_up") is True:
        line += "\n  caught up after the restore: this station records again"
    elif r.get("caught_up") is False:
        line += "\n  still catching up after the restore (see 'booth sync status')"
    return line


def _restored_state(st: Station) -> dict[str, Any]:
    """Whether this station, restored from a backup, is still catching up, and on whom."""
    held = restored.state(st.ledger.conn)
    if held is None:
        return {"catching_up": False}
    own = heads.last_seq(st.ledger.conn, st.id)
    waiting = sorted(restored.listed_peers(st.ledger.conn, st.id) - set(held.heard))
    return {
        "catching_up": True,
        "backup_created": held.backup_created,
        "backup_own_seq": held.own_seq,
        "own_seq": own,
        "heard": held.heard,
        "ahead": sorted(peer for peer, seq in held.heard.items() if seq > own),
        "waiting_for": waiting,
    }


def _restored_line(state_: dict[str, Any]) -> list[str]:
    if not state_["catching_up"]:
        return []
    waiting = ", ".join(state_["waiting_for"]) or "a peer that answers"
    return [
        f"RESTORED from a backup of {state_['backup_created'] or '?'}: catching up, records "
        f"nothing yet (its own events up to seq {state_['own_seq']} here); waiting for {waiting}"
    ]


@sync.command("status")
@json_option
@click.pass_context
@reads
def sync_status(ctx: click.Context) -> None:
    """Peers, their last contact, and per-origin high-water marks here and at each peer (as
    it last said)."""
    from pos import __version__
    from pos.domain.hall_link import behind_text
    from pos.services import link

    with state(ctx).open_station() as st:
        peers = [_with_release(p) for p in replication.peers(st.ledger.conn)]
        origins = {
            head.origin: {"last_seq": head.last_seq, "last_hlc": head.last_hlc}
            for head in heads.detail(st.ledger.conn)
        }
        hall_link = link.hall_link_now(st)
        own_clock = link.own_clock(st)
        behind = link.behind_by_origin(st)
        restored_now = _restored_state(st)
    from sync.service import running_for

    service = running_for(st.directory)
    data: dict[str, Any] = {
        "station": st.id,
        "peers": peers,
        "origins": origins,
        "checked_at": st.clock.now().isoformat(timespec="seconds"),
        # what only the running station knows: asked of it (booth serve or the screen)
        "live": service.live_state() if service is not None else None,
        # in words: "up to date" or "N events behind" (what peers said they hold, not here yet)
        "summary": behind_text(hall_link.behind),
        "behind": hall_link.behind,
        "behind_by_origin": behind,
        "hall_link": hall_link.text,
        # restored from a backup and not caught up yet: it records nothing (backup-and-restore.md)
        "restored": restored_now,
        # Booth's version here; each peer's (version) and clock (clock_offset_ms: how far it
        # was ahead of this station's at the last sync) are in `peers`
        "release": __version__,
        # this station's clock against the manager's: off when more than a minute apart
        "clock": {"level": own_clock.level, "text": own_clock.text},
    }
    emit(
        ctx,
        data,
        lambda: "\n".join(
            _restored_line(restored_now)
            + [f"{data['summary']} · {hall_link.text}"]
            + (
                [
                    f"CLOCK OFF: {own_clock.text}: point this station's clock at the manager "
                    "(docs/hall-setup.md, 'One hall clock')"
                ]
                if own_clock.text
                else []
            )
            + [f"this station {st.id}: Booth {__version__}"]
            + [
                f"{p['url']:<32} {p['station'] or '?':<12} "
                f"last contact {p['last_contact'] or 'never'}"
                + _release_and_clock(p["release_text"], p["clock_offset_ms"])
                + (f"  ERROR {p['last_error']}" if p["last_error"] else "")
                for p in peers
            ]
            + _live_lines(data["live"])
            + [
                f"  {origin:<12} seq {o['last_seq']} here"
                + "".join(
                    f", {(p['heads'] or {}).get(origin, 0)} at {p['station'] or p['url']}"
                    for p in peers
                    if p["heads"] is not None
                )
                for origin, o in origins.items()
            ]
        ),
    )


def _with_release(peer: dict[str, Any]) -> dict[str, Any]:
    """A peer as `sync status --json` gives it: `version` only as it said one, and its release
    in words (release_state: said, unsaid - it answered and said none: before 0.2.0 - or
    unknown, not heard from yet)."""
    release = peer_release.peer_release(peer["version"])
    return {
        **peer,
        "version": release.release,
        "release_state": release.state,
        "release_text": release.text,
    }


def _release_and_clock(release_text: str, offset_ms: int | None) -> str:
    """A peer's release and clock, as `sync now` and `sync status` say them."""
    from pos.domain import clock_skew

    text = f", {release_text}"
    if offset_ms is not None:
        flag = " (OFF by more than a minute)" if clock_skew.off(offset_ms) else ""
        text += f", {clock_skew.peer_clock(offset_ms)}{flag}"
    return text


def _live_lines(live: dict[str, Any] | None) -> list[str]:
    if live is None:
        return ["not running: the station's service (booth serve or its screen) is stopped"]
    lines = [f"running, serving on {live['serving']}"]
    for peer in live["peers"]:
        doing = "pulling now" if peer["pulling"] else f"next pull in {peer['next_pull_in']} s"
        failing = f", {peer['failures']} failure(s) in a row" if peer["failures"] else ""
        lines.append(f"  {peer['url']} ({peer['source']}): {doing}{failing}")
    return lines


def _tell_running_service(st: Station) -> None:
    from sync.service import running_for

    service = running_for(st.directory)
    if service is not None:
        service.set_static_peers(_static_peers(st))


@sync.command("finish-restore")
@operator_option
@json_option
@click.pass_context
def sync_finish_restore(ctx: click.Context, operator: str | None) -> None:
    """End a restored station's catching up without its peers' word (managers only).

    For a station none of whose peers can be reached, ever (a hall of one station, or every
    other one gone). Its numbers then go on from the backup's end: any event it recorded after
    the backup that some station or stick still holds will meet its new events as a fork."""
    with state(ctx).open_station() as st:
        by = st.operator(operator, "manager")
        with st.ledger.transaction():
            held = restored.finish(st.ledger.conn)
        own = heads.last_seq(st.ledger.conn, st.id)
    if held is None:
        raise BadInput("station", f"station {st.id} is not catching up after a restore")
    result = {
        "station": st.id,
        "by": by.badge,
        "backup_created": held.backup_created,
        "own_seq": own,
        "heard": held.heard,
    }
    emit(
        ctx,
        result,
        f"Station {st.id} records again, from {st.id}:{own + 1}, without its peers' word "
        f"(ended by {by.badge}). An event it recorded after the backup that a station still "
        "holds will show as a fork: see docs/inspectors-guide.md.",
    )


@sync.group("peer")
def sync_peer() -> None:
    """Listed peers, for LANs where multicast is blocked."""


@sync_peer.command("add")
@click.argument("url")
@operator_option
@click.pass_context
def sync_peer_add(ctx: click.Context, url: str, operator: str | None) -> None:
    """List a peer by URL (https://HOST:PORT)."""
    if not url.startswith(("https://", "http://")):
        raise BadInput("url", f"{url!r} is not https://HOST:PORT")
    with state(ctx).open_station() as st:
        st.operator(operator, "manager")
        with st.ledger.transaction():
            replication.list_peer(st.ledger.conn, url.rstrip("/"))
        _tell_running_service(st)
    click.echo(f"Peer {url} listed.")


@sync_peer.command("remove")
@click.argument("url")
@operator_option
@click.pass_context
def sync_peer_remove(ctx: click.Context, url: str, operator: str | None) -> None:
    """Forget a listed peer."""
    with state(ctx).open_station() as st:
        st.operator(operator, "manager")
        with st.ledger.transaction():
            replication.forget_peer(st.ledger.conn, url.rstrip("/"))
        _tell_running_service(st)
    click.echo(f"Peer {url} forgotten.")


@sync.group("upstream")
def sync_upstream() -> None:
    """The head-office CouchDB this station pushes its events to (HTTPS, user and password)."""


def _upstream_password(password_file: Path | None) -> str:
    """From --password-file, else BOOTH_UPSTREAM_PASSWORD, else asked for (never an option:
    a command line is visible to every user of the machine)."""
    from sync.upstream import PASSWORD_ENV

    if password_file is not None:
        from pos.services.inputs import SECRET_MAX, read_input_text

        return read_input_text(password_file, "password-file", limit=SECRET_MAX).rstrip("\r\n")
    if os.environ.get(PASSWORD_ENV):
        return os.environ[PASSWORD_ENV]
    password: str = click.prompt("Head-office password", hide_input=True)
    return password


@sync_upstream.command("set")
@click.argument("url")
@click.option("--user", required=True, help="The head office's user name for this hall.")
@click.option(
    "--password-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A file holding the password (else BOOTH_UPSTREAM_PASSWORD, else asked for).",
)
@click.option(
    "--ca-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="PEM certificate(s) of a private head-office CA (default: the system's CAs).",
)
@operator_option
@click.pass_context
def sync_upstream_set(
    ctx: click.Context,
    url: str,
    user: str,
    password_file: Path | None,
    ca_file: Path | None,
    operator: str | None,
) -> None:
    """Set the head-office database (https://HOST:PORT/DATABASE) and its credentials."""
    from sync.upstream import SETTINGS_FILE, make_settings, read_ca_file, save_settings

    ca_pem = read_ca_file(ca_file) if ca_file is not None else None
    make_settings(url, user, "-", ca_pem)  # a bad URL is refused before the password is asked
    with state(ctx).open_station() as st:
        st.operator(operator, "manager")
        settings = make_settings(url, user, _upstream_password(password_file), ca_pem)
        save_settings(st.directory, settings)
    click.echo(
        f"Upstream {settings.url} as {settings.user} set "
        f"(in {st.directory / SETTINGS_FILE}, readable by this account only)."
    )


@sync_upstream.command("push")
@json_option
@click.pass_context
def sync_upstream_push(ctx: click.Context) -> None:
    """Copy every event the head office lacks to it; returns when done."""
    from sync.upstream import push

    with (
        state(ctx).open_station() as st,
        progress_bar(ctx, "Pushing to the head office") as progress,
    ):
        result = push(st.ledger, _required_upstream(st), hall=st.config.hall, progress=progress)
    emit(
        ctx,
        result.to_dict(),
        f"Pushed {result.written} new of {result.examined} examined to {result.url} "
        f"({result.bytes_sent} bytes sent); up to event {result.since} here."
        + (" The database was created." if result.created else ""),
    )


@sync_upstream.command("pull")
@json_option
@click.pass_context
def sync_upstream_pull(ctx: click.Context) -> None:
    """Take in every event the head office holds that this station lacks, each checked as from
    any peer; never writes to the head office. Exits 4 after the pull if anything was refused."""
    from sync.upstream_pull import pull

    with (
        state(ctx).open_station() as st,
        progress_bar(ctx, "Pulling from the head office") as progress,
    ):
        result = pull(st.ledger, _required_upstream(st), progress=progress)
    emit(
        ctx,
        result.to_dict(),
        lambda: "\n".join(
            [
                f"Pulled {result.applied} new of {result.examined} examined from {result.url} "
                f"({result.requests} requests, {result.bytes_received} bytes received)."
            ]
            + [f"  refused: {message}" for message in result.refusals]
        ),
    )
    if result.refused:
        click.echo(
            f"booth: {result.refused} document(s) from the head office refused, nothing of them "
            "stored (a refused event is recorded as an incident); the rest was taken in",
            err=True,
        )
        ctx.exit(IntegrityFailure.exit_code)


@sync_upstream.command("status")
@json_option
@click.pass_context
@reads
def sync_upstream_status(ctx: click.Context) -> None:
    """The upstream's URL and user (never the password) and the last push."""
    from sync.upstream import last_push, load_settings

    with state(ctx).open_station() as st:
        settings = load_settings(st.directory)
        last = last_push(st.ledger, st.config.hall)
        held = replication.update_seq(st.ledger.conn)
    data: dict[str, Any] = {
        "upstream": settings.public() if settings else None,
        "last_push": last,
        "events_here_up_to": held,
    }

    def human() -> str:
        if settings is None:
            return "No upstream set ('booth sync upstream set URL --user NAME')."
        lines = [f"Upstream {settings.url} as {settings.user} ({settings.public()['ca']} CA)"]
        if last is None:
            lines.append("  never pushed")
        else:
            lines.append(
                f"  last push {last['at']}: {last['written']} new of {last['examined']} "
                f"examined; up to event {last['since']} of {held} here"
            )
        return "\n".join(lines)

    emit(ctx, data, human)


@sync_upstream.command("remove")
@operator_option
@click.pass_context
def sync_upstream_remove(ctx: click.Context, operator: str | None) -> None:
    """Forget the upstream and its credentials (the head office keeps what it holds)."""
    from sync.upstream import remove_settings

    with state(ctx).open_station() as st:
        st.operator(operator, "manager")
        removed = remove_settings(st.directory)
    click.echo("Upstream removed." if removed else "No upstream was set.")


def _required_upstream(st: Station) -> UpstreamSettings:
    from sync.upstream import load_settings

    settings = load_settings(st.directory)
    if settings is None:
        raise BadInput("upstream", "no upstream set: 'booth sync upstream set URL --user NAME'")
    return settings


@click.command()
@click.argument("serial")
@click.option("--bin", "bin_name", required=True, help="The bin here that takes the deal.")
@click.option("--force", is_flag=True, help="Take it from a holder that cannot answer (managers).")
@click.option("--reason", help="Why, for a forced takeover (recorded).")
@operator_option
@json_option
@click.pass_context
def handover(
    ctx: click.Context,
    serial: str,
    bin_name: str,
    force: bool,
    reason: str | None,
    operator: str | None,
) -> None:
    """Take a deal over from the station that holds it: asked over the LAN, or forced."""
    from pos.errors import RuleRefused
    from pos.services.ownership import acquire_deal
    from sync.client import Peer, client_context
    from sync.errors import SyncError
    from sync.replicator import pull

    with state(ctx).open_station() as st:
        if force:
            if not reason:
                raise BadInput("reason", "a forced takeover needs --reason TEXT")
            result = acquire_deal(
                st, serial, bin_name=bin_name, operator=operator, force_reason=reason
            )
        else:
            row = replication.deal_holder_address(st.ledger.conn, serial.strip().upper())
            if row is None:
                raise BadInput("serial", f"deal {serial!r} is not on file at this station")
            holder, url = row
            if holder and holder != st.id:
                if not url:
                    raise RuleRefused(
                        "OWNER",
                        f"deal {serial} is held by {holder}, whose "
                        "address is not known here; a manager can force it "
                        "(--force --reason TEXT)",
                    )
                peer = Peer(url, client_context(st.directory), timeout=10)
                try:
                    peer.request("POST", "/_booth/release", {"serial": serial.strip().upper()})
                    pull(st.ledger, peer)
                except SyncError as error:
                    raise RuleRefused(
                        "OWNER",
                        f"the holder {holder} cannot be reached or "
                        f"refused ({error.message}); a manager can force it "
                        "(--force --reason TEXT)",
                    ) from None
                finally:
                    peer.close()
            result = acquire_deal(st, serial, bin_name=bin_name, operator=operator)
    emit(
        ctx,
        result,
        f"Deal {result['serial']} is now held here, bin {result['bin']}"
        + (" (forced, audited)" if result["forced"] else f" (released by {result['from']})")
        + ".",
    )


COMMANDS = [serve, sync, handover]
