"""A user op that may not be inlined (for V020), loaded with `vyre-opt --load-ops`."""

from vyre import ops
from vyre.ir import DataType
from vyre.ops import OpSignature, OpSpec

ops.register(
    OpSpec(
        id="user.buffer.opaque",
        version=1,
        signature=OpSignature(inputs=[DataType.U32], output=DataType.U32),
        category="A",
        reference=lambda a: a,
        composition=lambda a: a,
        boundaries=[0, 1, 0xFFFFFFFF],
        inlinable=False,
    )
)
