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
