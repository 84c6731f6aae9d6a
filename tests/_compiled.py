"""Helpers of the compiled-kernel tests."""


def both(kernel):
    """The compiled kernel and its Python source."""
    return [kernel, kernel.py_func]
