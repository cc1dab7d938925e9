"""The rules of docs/validation.md, one module per concern.

`vyre.validate` is the public entry point; `checker` walks a kernel and checks
every rule but V010, `uniformity` decides V010, `casts` holds the cast table,
`registry` asks the op registry about calls, `messages` holds every text."""
