"""fsel.meta."""
