"""A/B: the transformer block with row kernels of at most WIDTH invocations (argv[1])."""
import sys

import _common  # noqa: F401

from vyre.transforms.tensors import rows

width = int(sys.argv[1])
original = rows.row_width
rows.row_width = lambda length, most=width: original(length, min(most, width))  # type: ignore[assignment]
sys.argv = ["transformer.py", "--sizes", "medium"]
import transformer  # noqa: E402

sys.exit(transformer.main(sys.argv[1:]))
