"""views: see docs/architecture.md."""
