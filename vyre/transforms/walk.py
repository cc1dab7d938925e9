"""A fast pre-order walk of an op and everything nested in it.

`operations(op)` lists the same ops in the same order as xDSL's `op.walk()`
(the op, then each region's blocks' ops, depth first), without its generator
recursion: the pipeline's passes and the lowering walk whole kernels of up to
100k nodes and must stay linear and cheap (`vyre.lowering.walk` re-exports
it). It reads the private links behind xDSL's trivial public properties
(`_first_block`, `_next_block`, `_first_op`, `_next_op`), as `vyre.fingerprint`
does; test/unit/lowering/test_walk.py checks it against `op.walk()`.
"""

from __future__ import annotations

from xdsl.ir import Operation

__all__ = ["operations"]


def operations(root: Operation) -> list[Operation]:
    """`list(root.walk())`, fast."""
    found: list[Operation] = []
    stack: list[Operation | None] = [root]
    append = found.append
    while stack:
        op = stack.pop()
        while op is not None:
            append(op)
            following = op._next_op if op is not root else None  # pyright: ignore[reportPrivateUsage]
            if op.regions:
                stack.append(following)
                firsts: list[Operation | None] = []
                for region in op.regions:
                    block = region._first_block  # pyright: ignore[reportPrivateUsage]
                    while block is not None:
                        firsts.append(block._first_op)  # pyright: ignore[reportPrivateUsage]
                        block = block._next_block  # pyright: ignore[reportPrivateUsage]
                stack.extend(reversed(firsts))
                break
            op = following
    return found
