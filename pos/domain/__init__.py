"""Pure rules and values. Standard library only; time is always a parameter."""
