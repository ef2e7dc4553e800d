"""LAN sync beside the UI: `booth serve`'s SyncService (sync/) on the station the worker owns.

The service opens its own ledger connection for serving and pulling; what it writes through the
station's own connection (each peer contact) it writes under its write lock, which the worker
also holds around every command, so the two never interleave on that connection.
"""

from __future__ import annotations

from typing import Any

from kiosk.runtime import StationRuntime


class ServeSync:
    def __init__(
        self,
        *,
        address: str = "127.0.0.1",
        port: int = 8701,
        peers: tuple[str, ...] = (),
        discover: bool = True,
    ) -> None:
        self.address, self.port, self.peers, self.discover = address, port, peers, discover
        self.service: Any = None
        self.status = "LAN sync: starting"

    def start(self, runtime: StationRuntime) -> None:
        from sync.service import SyncService

        assert runtime.worker is not None
        station = runtime.worker_call(lambda st: st)
        service = SyncService(
            station=station,
            port=self.port,
            address=self.address,
            static_peers=list(self.peers),
            discover=self.discover,
        )
        runtime.worker.job_lock = service.write_lock
        service.start()
        self.service = service
        self.status = f"LAN sync: serving on {self.address}:{service.port}"

    def stop(self) -> None:
        if self.service is not None:
            self.service.stop()
            self.service = None


class WithWeb:
    """LAN sync (or none) and, beside it, the manager's phone: the read-only web app (web/,
    found by the `booth.web` entry point) on the station the worker owns."""

    def __init__(self, inner: Any, address: str) -> None:
        self.inner, self.address = inner, address
        self.app: Any = None

    @property
    def status(self) -> str:
        return str(self.inner.status) + (f"; phone: {self.app.url}" if self.app else "")

    def start(self, runtime: StationRuntime) -> None:
        from pos import plugins

        self.inner.start(runtime)
        station = runtime.worker_call(lambda st: st)
        self.app = plugins.load("booth.web", "https")(station, self.address)

    def stop(self) -> None:
        if self.app is not None:
            self.app.stop()
            self.app = None
        self.inner.stop()
