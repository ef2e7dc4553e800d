"""Commands: check with the domain, append events, projections follow; one transaction each."""
