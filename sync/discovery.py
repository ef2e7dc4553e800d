"""Finding the hall's other stations with zeroconf (`_booth._tcp.local.`), IPv4 only, bound to
the interfaces configured. The station id is in the instance name, so names never collide."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("booth.sync.discovery")

SERVICE_TYPE = "_booth._tcp.local."
PROTOCOL = "1"


@dataclass(frozen=True)
class Found:
    station: str
    role: str
    url: str


class Discovery:
    def __init__(
        self,
        *,
        hall: str,
        station: str,
        role: str,
        port: int,
        address: str,
        on_found: Callable[[Found], None],
    ) -> None:
        self.hall, self.station, self.role = hall, station, role
        self.port, self.address = port, address
        self.on_found = on_found
        self._zeroconf: Any = None
        self._browser: Any = None
        self._info: Any = None

    @property
    def instance(self) -> str:
        return f"{self.station}-{self.hall}.{SERVICE_TYPE}"

    def start(self) -> None:
        from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, Zeroconf

        self._zeroconf = Zeroconf(interfaces=[self.address], ip_version=IPVersion.V4Only)
        self._info = ServiceInfo(
            SERVICE_TYPE,
            self.instance,
            port=self.port,
            addresses=[socket.inet_aton(self.address)],
            properties={
                "hall": self.hall,
                "station": self.station,
                "role": self.role,
                "proto": PROTOCOL,
                "port": str(self.port),
            },
            server=f"{self.station}-{self.hall}.local.",
        )
        self._zeroconf.register_service(self._info)
        self._browser = ServiceBrowser(self._zeroconf, SERVICE_TYPE, handlers=[self._changed])

    def _changed(self, zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        from zeroconf import ServiceStateChange

        if state_change is not ServiceStateChange.Added or name == self.instance:
            return
        info = zeroconf.get_service_info(service_type, name, timeout=3000)
        if info is None:
            return
        props = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
        if props.get("hall") != self.hall or props.get("proto") != PROTOCOL:
            log.info("ignoring %s: another hall or protocol", name)
            return
        addresses = info.parsed_addresses()
        if not addresses or props.get("station") in (None, self.station):
            return
        self.on_found(
            Found(props["station"], props.get("role", ""), f"https://{addresses[0]}:{info.port}")
        )

    def stop(self) -> None:
        if self._zeroconf is None:
            return
        try:
            if self._browser is not None:
                self._browser.cancel()
            self._zeroconf.unregister_service(self._info)
        finally:
            self._zeroconf.close()
            self._zeroconf = None
