"""What every command-line entry point of vyre shares (vyre-opt, vyre-run,
vyre-conform, `python -m vyre`, `python -m vyre.runtime.adapters`, the fuzz
driver): a closed standard output ends the run quietly (`pipes.py`), and a
mistyped name gets a suggestion (`suggest.py`: passes, options, choices).

Nothing here imports the rest of vyre, so any layer's entry point may use it.
"""
