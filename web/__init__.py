"""The manager's phone: a small read-only web app over HTTPS on the hall's LAN (`booth serve
--web`, `booth run --web`), and its commands (`booth web pair|sessions|revoke`)."""
