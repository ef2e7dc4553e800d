"""Bill acceptors: a simulator (tests, the demo hall) and ITL's SSP on a serial line."""
