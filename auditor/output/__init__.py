"""output: see docs/architecture.md."""
