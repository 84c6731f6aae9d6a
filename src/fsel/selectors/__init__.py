"""fsel.selectors."""
