"""The built-in kernel ops (whole-buffer kernels), one module per family.

Each family module defines `KERNELS`, a tuple of `vyre.kernels.spec.KernelSpec`;
the registry loads them on first use. Shared kernel-building pieces (grid-stride
tiling, the workgroup tree, the parameter block) live in `common.py`.
"""
