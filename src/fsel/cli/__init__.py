"""fsel.cli."""
