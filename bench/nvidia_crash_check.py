"""On an NVIDIA adapter: the programs whose shaders crashed the driver now compile and run.

    python bench/nvidia_crash_check.py

Runs, each in a child process (a driver crash kills only the child): the corpus entry that
crashed NVIDIA's driver (its differential check against the interpreter), the reduced
construct of test/unit/runtime/test_wgpu_loops.py against the interpreter, and the reduced
WGSL shaders as they are (which still crash the driver: its bug, that the lowering avoids).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHECKS = {
    "corpus entry 8a0de831eb9e5e71 (differential check)": (
        "import sys; from vyre.testing.fuzz import get_fuzzer; "
        "get_fuzzer('differential').check(open('test/fuzz_corpus/differential/8a0de831eb9e5e71.json', 'rb').read())"
    ),
    "reduced construct, vyre program vs interpreter": (
        "import numpy as np, vyre; from vyre.ir import *; import importlib.util as u; "
        "s = u.spec_from_file_location('t', 'test/unit/runtime/test_wgpu_loops.py'); m = u.module_from_spec(s); "
        "s.loader.exec_module(m); m.test_a_loop_with_no_iteration_is_not_emitted_and_the_kernel_matches_the_interpreter(None); "
        "print(vyre.runtime.wgpu_device.gpu_device().adapter.info['device'])"
    ),
}
for name in ("nvidia-pipeline-crash-50.wgsl", "nvidia-pipeline-crash-117.wgsl", "nvidia-pipeline-crash-shrunk.wgsl"):
    CHECKS[f"raw WGSL {name} (create_compute_pipeline)"] = (
        "import wgpu; d = wgpu.gpu.request_adapter_sync(power_preference='high-performance').request_device_sync(); "
        f"m = d.create_shader_module(code=open('bench/results/{name}').read()); "
        "d.create_compute_pipeline(layout='auto', compute={'module': m, 'entry_point': 'main'})"
    )

for name, code in CHECKS.items():
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    status = "ok" if done.returncode == 0 else (f"killed by signal {-done.returncode}" if done.returncode < 0 else f"failed rc {done.returncode}")
    print(f"{name}: {status} {done.stdout.strip()[-200:]} {done.stderr.strip()[-600:] if done.returncode else ''}", flush=True)
