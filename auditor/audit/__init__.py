"""audit: see docs/architecture.md."""
