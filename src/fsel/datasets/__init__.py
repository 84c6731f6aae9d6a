"""Data for fsel: the papers' synthetic generators and the shared ``.npz`` loader."""

from fsel.datasets.generators import (
    add_probes,
    make_corral,
    make_dong_kothari,
    make_m_of_n,
    make_monk,
    make_noisy_ocr,
    make_npfs_uniform,
    make_yuan_regression,
)
from fsel.datasets.loaders import Dataset, data_dir, list_datasets, load

__all__ = [
    "Dataset",
    "add_probes",
    "data_dir",
    "list_datasets",
    "load",
    "make_corral",
    "make_dong_kothari",
    "make_m_of_n",
    "make_monk",
    "make_noisy_ocr",
    "make_npfs_uniform",
    "make_yuan_regression",
]
