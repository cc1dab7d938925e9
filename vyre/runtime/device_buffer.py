"""`vyre.DeviceBuffer` and `vyre.to_device`: buffers that stay on the GPU.

Device-resident buffers:

```python
x = vyre.to_device(np_array, dtype=DataType.U32)       # a DeviceBuffer on the wgpu device
res = vyre.run(prog, {"a": x, "b": b}, dispatch=..., outputs={"out": n}, on_device=True)
res2 = vyre.run(prog2, {"x": res["out"]}, ...)          # chained without a host round trip
res2["y"].numpy()                                       # read back when asked
```

A DeviceBuffer is the words of one buffer (the host layout of
`vyre.runtime.host`: Bytes four per word, F16/BF16 two per word, U64 two words
per element) in a pooled storage buffer of the process-wide wgpu device
(`vyre.runtime.wgpu_device.Resident`), plus its element type and user element
count. It is immutable: a run that binds it read_write works on a copy made on
the device. Its GPU buffer returns to the pool when the object is collected.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from vyre.ir import DataType
from vyre.runtime import host

__all__ = ["DeviceBuffer", "to_device"]

_INFERRED: dict[np.dtype[Any], DataType] = {
    np.dtype(np.uint32): DataType.U32,
    np.dtype(np.int32): DataType.I32,
    np.dtype(np.float32): DataType.F32,
    np.dtype(np.float16): DataType.F16,
    np.dtype(np.uint64): DataType.U64,
    np.dtype(np.uint8): DataType.BYTES,
}
"""Element type of a DeviceBuffer made without `dtype=`, by numpy dtype."""


class DeviceBuffer:
    """One buffer's contents resident on the wgpu device (see the module doc)."""

    __slots__ = ("_resident", "count", "dtype")

    def __init__(self, resident: Any, dtype: DataType, count: int):
        from vyre.runtime.wgpu_device import Resident

        if not isinstance(resident, Resident):
            raise TypeError(
                "DeviceBuffer is made by vyre.to_device(array) or vyre.run(..., on_device=True)"
            )
        expected = host.word_count(dtype, count)
        if resident.words != expected:
            raise ValueError(
                f"{count} {dtype} elements take {expected} words, the device holds {resident.words}"
            )
        self._resident = resident
        self.dtype = dtype
        """The element type (`vyre.ir.DataType`)."""
        self.count = count
        """Elements (bytes for `Bytes`), as `len()` gives."""

    @property
    def resident(self) -> Any:
        """The device words (`vyre.runtime.wgpu_device.Resident`)."""
        return self._resident

    @property
    def nbytes(self) -> int:
        """Bytes of words on the device."""
        return int(self._resident.words) * 4

    def __len__(self) -> int:
        return self.count

    def numpy(self) -> np.ndarray:
        """Copy the contents back to the host, in the user form `vyre.run` returns."""
        return host.from_words("device buffer", self.dtype, self._resident.read(), self.count)

    def __repr__(self) -> str:
        return f"DeviceBuffer({self.dtype.value}, count={self.count})"


def to_device(array: object, dtype: DataType | None = None) -> DeviceBuffer:
    """Upload `array` (numpy, or bytes for `Bytes`) to the wgpu device.

    `dtype` defaults from the numpy dtype (uint32 -> U32, int32 -> I32, float32 ->
    F32, float16 -> F16, uint64 -> U64, uint8 or bytes -> Bytes); Bool, BF16 and
    the vector types need it spelled. The array is checked exactly as `vyre.run`
    checks an input (`TypeError`/`ValueError` naming the problem)."""
    if dtype is None:
        if isinstance(array, bytes | bytearray | memoryview):
            dtype = DataType.BYTES
        elif isinstance(array, np.ndarray):
            element: np.dtype[Any] = cast("np.ndarray[Any, np.dtype[Any]]", array).dtype
            found = _INFERRED.get(element.newbyteorder("<"))
            if found is None:
                raise TypeError(
                    f"vyre.to_device: cannot infer the element type of a {element} array;"
                    " pass dtype=DataType.<type>"
                )
            dtype = found
        else:
            raise TypeError(
                f"vyre.to_device expects a numpy array or bytes, got {type(array).__name__}"
            )
    elif not isinstance(dtype, DataType):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"dtype must be a vyre.ir.DataType, got {dtype!r}")
    words, count = host.to_words("array", dtype, cast(object, array))
    from vyre.runtime.wgpu_device import Resident, gpu_device

    return DeviceBuffer(Resident.upload(gpu_device(), words), dtype, count)
