"""The lowering of the tensor level (`vtensor`) to vyre kernels and a schedule:
values as strided views and fused elementwise trees (`kernel.py`) and the
kernel that writes one to memory (`elementwise.py`), the exact
accumulator (`exact.py`), the kernels of reductions (`reduce.py`; the exact
float sum in `exact_sum.py`) and matmul (`matmul.py`; on 8-bit dot products in
`matmul_dp4a.py` with `moduli.py`), the body of `vtensor.map` as an expression (`map_body.py`), the
graph walker (`lower.py`) and the schedule and its IR form (`schedule.py`).
The pass is `vyre.transforms.lower_tensors`."""
