"""Discovery (zeroconf), the replication server and client, and peer authentication."""
