"""run: see docs/architecture.md."""
