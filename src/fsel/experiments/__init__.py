"""fsel.experiments."""
