"""The `booth` command: a thin shell over the services that turns errors into messages."""
