"""fsel.kernels."""
