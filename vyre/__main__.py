"""`python -m vyre`: vyre's version, the adapter it would run on, every adapter with its
index (`VYRE_ADAPTER=gpu:N` picks one) and its installed extras.

    $ python -m vyre
    vyre 0.1.0
    adapter: llvmpipe (LLVM 15.0.6, 256 bits); backend Vulkan; device type CPU
    adapters:
      gpu:0 llvmpipe (LLVM 15.0.6, 256 bits); backend Vulkan; device type CPU (chosen)
    extras:
      gpu: wgpu 0.32.0
      dask: dask 2025.1.0
      prove: cvc5 1.2.1

Without a Vulkan adapter or without wgpu the adapter line reads `none (the reason)` and
no adapter is listed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from vyre.cli.pipes import quiet_on_closed_pipe
from vyre import installation


@quiet_on_closed_pipe
def main(argv: Sequence[str] | None = None) -> int:
    """Print `vyre.installation.report()`; always exits 0 (a report, not a check)."""
    argparse.ArgumentParser(
        prog="python -m vyre",
        description="vyre's version, the adapter it would run on, every adapter with its index"
        " (VYRE_ADAPTER=gpu:N) and its installed extras",
    ).parse_args(argv)
    print(installation.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
