"""Command-line tools of vyre (`vyre-opt`, `vyre-run`)."""
