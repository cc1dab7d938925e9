"""The tensor track of vyre-conform: L3f (the ops of vyre.tensor against the
independent reference) and L4f (the composites and a transformer block), a
planted bug found with its graph and inputs, bad arguments rejected; and the
independent reference itself checked against the test oracles."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensor_oracles as O

from vyre import conform
from vyre import tensor as vt
from vyre.conform import InterpBackend
from vyre.conform import tensor_reference as R
from vyre.conform.certificate import verify_certificate
from vyre.conform.cli import main
from vyre.conform.plan import PlanError, spec_fingerprint
from vyre.conform.tensor_cases import TENSOR_OPS

FAST: dict[str, Any] = {"strength": "fast", "corpus": None, "track": "tensor"}


def test_elementary_ops_certify_L3f_and_composites_L4f() -> None:
    cert = conform.certify(backend="interp", ops=["tensor.sub", "tensor.views", "tensor.softmax"], level="L3", **FAST)
    assert cert.passed and cert.level == "L3f"
    assert [o["id"] for o in cert.data["ops"]] == ["tensor.sub", "tensor.views"]  # composites are L4
    assert all(o["level"] == "L3f" and o["category"] == "tensor" for o in cert.data["ops"])
    assert verify_certificate(cert) == []
    l4 = conform.certify(backend="interp", ops=["tensor.neg", "tensor.layer_norm"], level="L4", **FAST)
    assert l4.passed and l4.level == "L4f", [str(f) for f in l4.failures]
    assert [o["level"] for o in l4.data["ops"]] == ["L3f", "L4f"]
    assert {ob.check for ob in l4.obligations} == {"composition"}
    assert verify_certificate(l4) == []


class FlippedSign(InterpBackend):
    """The interpreter, but the first element of every output has its top bit flipped."""

    def run_tensor(self, graph: vt.Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = super().run_tensor(graph, inputs)
        for value in out.values():
            if value.size:
                words = value.reshape(-1).view(np.uint32 if value.itemsize == 4 else np.uint16)
                words[0] ^= 1 << (8 * value.itemsize - 1)
        return out


def test_a_planted_bug_is_found_with_its_graph_and_inputs() -> None:
    cert = conform.certify(backend=FlippedSign(), ops=["tensor.neg"], level="L3", **FAST)
    assert not cert.passed and cert.level == "none"
    [failure] = [f for f in cert.failures if f.check == "reference"]
    assert failure.op_id == "tensor.neg" and failure.violations > 0
    assert "tensor.neg graph v" in failure.detail and "output `y`[0, 0" in failure.detail
    assert "against the independent reference" in failure.detail
    assert failure.fix.startswith("Fix: the kernels `lower-tensors` makes for `tensor.neg`")


def test_tensor_track_arguments_are_checked() -> None:
    with pytest.raises(PlanError, match="no op of the tensor track matches 'tensor.nope'"):
        conform.certify(backend="interp", ops=["tensor.nope"], **FAST)
    with pytest.raises(PlanError, match="composites, certified at level L4"):
        conform.certify(backend="interp", ops=["tensor.softmax"], level="L3", **FAST)
    with pytest.raises(PlanError, match="unknown check"):
        conform.certify(backend="interp", ops=["tensor.add"], checks=["laws"], **FAST)
    with pytest.raises(PlanError, match="no oracles"):
        conform.certify(backend="interp", ops=["tensor.add"], oracles={"tensor.add": np.add}, **FAST)


def test_the_registry_hash_covers_the_lowered_kernels() -> None:
    found = spec_fingerprint("tensor.softmax")
    assert found["category"] == "tensor-composite" and len(found["kernels"]) == TENSOR_OPS["tensor.softmax"].variants


def test_cli_certifies_the_tensor_track(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tensor.json"
    code = main(
        ["certify", "--track", "tensor", "--level", "L4", "--backend", "interp", "--strength", "fast",
         "--ops", "tensor.abs,tensor.attention", "--out", str(out)]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "level     L4f" in printed and "tensor track" in printed
    data = json.loads(out.read_text())
    assert [o["id"] for o in data["ops"]] == ["tensor.abs", "tensor.attention"]
    assert main(["verify-cert", str(out)]) == 0


def test_tensor_ops_on_wgpu_with_parity(gpu_adapter: object) -> None:
    cert = conform.certify(backend="wgpu", ops=["tensor.neg", "tensor.views"], level="L3", **FAST)
    assert cert.passed, [str(f) for f in cert.failures]
    assert cert.level == "L3f" and "parity" in cert.data["checks"]["tensor.views"]


# -- the reference, against the test oracles (exact rationals) -------------------------


@pytest.mark.parametrize("fmt", ["f32", "f16", "bf16"])
def test_the_reference_sums_agree_with_the_rational_oracle(fmt: str) -> None:
    rng = np.random.default_rng(5)
    bits = O.random_bits(rng, (6, 33), fmt)
    x = O.user_array(bits, fmt)
    uint = O.UINT[fmt]
    assert R.exact_sum(x, 1, fmt).view(uint).tolist() == [O.exact_sum(list(map(int, row)), fmt) for row in bits]
    assert R.ordered_sum(x, 1, "tree", fmt).view(uint).tolist() == [O.tree_sum(list(map(int, row)), fmt) for row in bits]
    assert R.ordered_sum(x, 1, "sequential", fmt).view(uint).tolist() == [
        O.sequential_sum(list(map(int, row)), fmt) for row in bits
    ]


def test_the_reference_matmuls_agree_with_the_rational_oracle() -> None:
    rng = np.random.default_rng(6)
    a, b = O.random_bits(rng, (4, 7), "f32"), O.random_bits(rng, (7, 3), "f32")
    exact = R.matmul_exact(a.view(np.float32), b.view(np.float32)).view(np.uint32)
    assert exact.tolist() == [[O.exact_dot(list(map(int, a[i])), list(map(int, b[:, j])), "f32") for j in range(3)] for i in range(4)]
    sequential = R.matmul_sequential(a.view(np.float32), b.view(np.float32)).view(np.uint32)
    for i in range(4):
        for j in range(3):
            acc = O.fma_f32(int(a[i, 0]), int(b[0, j]), 0x8000_0000)
            for k in range(1, 7):
                acc = O.fma_f32(int(a[i, k]), int(b[k, j]), acc)
            assert int(sequential[i, j]) == acc, (i, j)
