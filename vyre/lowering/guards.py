"""The guards that give WGSL vyre's semantics, one method each.

WGSL (through naga and wgpu-native) differs from vyre in these places:

- `divide`: WGSL gives `x / 0 == x`; vyre gives 0. Emitted as a helper
  `select(a / select(b, 1u, b == 0u), 0u, b == 0u)`; a constant divisor is folded
  (a zero divisor yields the literal 0 without any division). vyre has no signed
  division or remainder (BinOp operands are u32, V021), so no signed `%` is ever
  emitted (NVIDIA miscompiles it).
- `shift`: amounts are masked `& 31u`; constant amounts are folded to a literal
  below 32 (WGSL rejects constant shift amounts >= 32).
- `divide_u128`, `shift_u128`: the same rules for U128 (`vec4<u32>`, u128.py):
  x / 0 == x % 0 == 0 (a constant zero divisor gives the literal 0, any other
  divisor the helper that tests for zero before the long division); the amount
  is its low word `& 127u`, a constant amount folded (0: the value itself; whole
  words: a swizzle).
- `load` / `store` / `atomic`: an index at or past the buffer's *logical* element
  count reads 0, writes nothing, and runs no atomic (returning 0) - for storage,
  uniform and workgroup buffers alike (naga clamps workgroup indices to the last
  element instead). Counts come from the meta uniform (storage, uniform) or the
  declared count (workgroup).
- `load` / `store` of an F16/BF16 storage or uniform buffer (two elements per
  word, element 2k in the low half; layout.py): bounded by the logical ELEMENT
  count; a load extracts the half, `(word >> ((i & 1u) << 4u)) & 0xffffu`; a store
  replaces only its half with a compare-exchange loop on the word of the
  `array<atomic<u32>>` buffer, so a neighbour stored at the same time by another
  invocation is never lost (a plain read-modify-write of the word would lose it).
- `atomic` compare-exchange is strong: `atomicCompareExchangeWeak` in a loop until
  it succeeds or observes a value other than `expected`; it returns the old value.
- `zero_workgroup_memory`: wgpu-native does not zero workgroup memory; the
  invocations of each workgroup clear it cooperatively, then `workgroupBarrier()`
  (an `array<atomic<u32>, N>` with `atomicStore(&a[k], 0u)`).
- workgroup atomics: a workgroup buffer that an atomic touches is declared
  `array<atomic<u32>, N>` (layout.py); the atomic builtins take `&name[i]` there as
  they do on storage, under the same OOB guard (an index >= N runs nothing and
  returns 0 - never naga's clamp to the last element, which would count a stray
  index in the last bin), and its plain loads / stores become `atomicLoad` /
  `atomicStore` under the load / store guards. All of them are relaxed; a
  Barrier (`workgroupBarrier()`) makes them visible to the whole workgroup.
- `lookup` (a word of a constant table): a read of the kernel's one table buffer
  (layout.py `TableBuffer`) at the table's offset, its index clamped to the
  table and 0 past its end; never a dynamically indexed `const` array (naga
  copies one into function-local memory on every access).
- `intrinsic_call`: Category C ops left as calls map 1:1 to their WGSL builtin;
  `extractBits`/`insertBits` get `offset`/`count` clamped the way WGSL defines
  them (o = min(offset, 32), c = min(count, 32 - o)), folded to literals when both
  are constant (WGSL rejects constant offset + count > 32).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from vyre.dialects.vyre import AtomicOpKind, BinOpKind, DataTypeKind
from vyre.lowering import u128
from vyre.lowering.layout import META_OFFSET_WORDS, BufferBinding, MetaLayout, WorkgroupArray
from vyre.lowering.names import Namer
from vyre.lowering.values import Value, storage_zero, u32_literal, wgsl_type, zero_value

U32 = DataTypeKind.U32
U128 = DataTypeKind.U128

_ATOMIC_BUILTINS: dict[AtomicOpKind, str] = {
    AtomicOpKind.ADD: "atomicAdd",
    AtomicOpKind.OR: "atomicOr",
    AtomicOpKind.AND: "atomicAnd",
    AtomicOpKind.XOR: "atomicXor",
    AtomicOpKind.MIN: "atomicMin",
    AtomicOpKind.MAX: "atomicMax",
    AtomicOpKind.EXCHANGE: "atomicExchange",
}


@dataclass
class Guards:
    """Emits guarded operations; collects the WGSL helper functions they call."""

    namer: Namer
    """Allocates module-scope helper names (must avoid every name of the kernel)."""
    param_namer: Namer
    """Holds the module-scope names that helper parameters must not shadow."""
    storage: dict[str, BufferBinding]
    workgroup: dict[str, WorkgroupArray]
    meta: MetaLayout
    status: str | None = None
    """The WGSL name of the loop status word (`array<atomic<u32>>`, loops.py) on
    adapters that stop loops silently; None elsewhere."""
    functions: dict[str, tuple[str, str]] = field(default_factory=lambda: {})
    """key -> (helper name, WGSL text), in the order first needed."""
    status_used: bool = False
    """Some emitted loop checks its exit and may set the status word."""
    tables: dict[tuple[int, ...], int] = field(default_factory=lambda: {})
    """The distinct constant tables read -> their offset in `table_words`."""
    table_words: list[int] = field(default_factory=lambda: list[int]())
    """The tables read, concatenated in the order first read: the words of the
    kernel's table buffer (layout.py `TableBuffer`)."""
    table_name: str | None = None
    """The WGSL name of the table buffer, claimed at the first table read."""
    int64: bool = False
    """The target takes WGSL `u64` (options.py `int64`): `mul_high` is one wide
    multiply there (mul_high.py)."""

    def _helper(self, key: str, hint: str, make: Callable[[str], str]) -> str:
        if key not in self.functions:
            name = self.namer.claim(hint)
            self.functions[key] = (name, make(name))
        return self.functions[key][0]

    def _params(self, *wanted: str) -> tuple[str, ...]:
        scope = Namer(set(self.param_namer.taken))
        return tuple(scope.claim(name) for name in wanted)

    # -- division guard ---------------------------------------------------------

    def divide(self, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        """`lhs / rhs` or `lhs % rhs` with x / 0 == x % 0 == 0."""
        symbol = "/" if kind == BinOpKind.DIV else "%"
        if rhs.const is not None:
            if rhs.const[0] == 0:
                return Value.constant(U32, (0,))
            text = f"{lhs.operand} {symbol} {rhs.operand}"
            return Value.derived(text, U32, lhs, rhs, atomic=False)
        word = "div" if kind == BinOpKind.DIV else "mod"

        def make(name: str) -> str:
            a, b = self._params("dividend", "divisor")
            return (
                f"// {'Division' if word == 'div' else 'Remainder'} guard: "
                f"x {symbol} 0 == 0 (WGSL gives x / 0 == x).\n"
                f"fn {name}({a}: u32, {b}: u32) -> u32 {{\n"
                f"  return select({a} {symbol} select({b}, 1u, {b} == 0u), 0u, {b} == 0u);\n"
                f"}}"
            )

        helper = self._helper(word, f"vyre_{word}", make)
        return Value.derived(f"{helper}({lhs.text}, {rhs.text})", U32, lhs, rhs)

    # -- U128 helpers and guards ---------------------------------------------------

    def helper(self, key: str, hint: str, make: Callable[[str], str]) -> str:
        """The name of module-scope helper function `key`, made by `make(name)` the
        first time it is needed (u128.py's helpers)."""
        return self._helper(key, hint, make)

    def local_names(self) -> Callable[[str], str]:
        """Claims the names of one helper's parameters and locals: none shadows a
        module-scope name."""
        return Namer(set(self.param_namer.taken)).claim

    def u128_function(self, what: str, make: Callable[[str, Callable[[str], str]], str]) -> str:
        """The helper `vyre_u128_<what>` made by a text function of u128.py."""
        return self.helper(f"u128 {what}", f"vyre_u128_{what}", lambda name: make(name, self.local_names()))

    def divide_u128(self, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        """U128 `lhs / rhs` or `lhs % rhs` with x / 0 == x % 0 == 0."""
        if rhs.const is not None and not any(rhs.const):
            return Value.constant(U128, (0, 0, 0, 0))
        shl = self.u128_function("shl", u128.shift_left)
        shr = self.u128_function("shr", u128.shift_right)
        clz = self.u128_function("clz", u128.clz)
        core = self.u128_function(
            "divmod", lambda name, claim: u128.divmod_core(name, claim, shl, shr, clz)
        )
        word, part = ("div", 0) if kind == BinOpKind.DIV else ("mod", 1)

        def make(name: str, claim: Callable[[str], str]) -> str:
            a, b, qr = claim("dividend"), claim("divisor"), claim("qr")
            return (
                f"// {'Division' if word == 'div' else 'Remainder'} guard (u128): x "
                f"{'/' if word == 'div' else '%'} 0 == 0.\n"
                f"fn {name}({a}: vec4<u32>, {b}: vec4<u32>) -> vec4<u32> {{\n"
                f"  if (all({b} == vec4<u32>())) {{\n"
                f"    return vec4<u32>();\n"
                f"  }}\n"
                f"  let {qr} = {core}({a}, {b});\n"
                f"  return {qr}[{part}];\n"
                f"}}"
            )

        helper = self.u128_function(word, make)
        return Value.derived(f"{helper}({lhs.text}, {rhs.text})", U128, lhs, rhs)

    def shift_u128(self, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        """U128 `lhs << (rhs & 127)` / `lhs >> (rhs & 127)` (the amount's low word);
        a constant amount is folded: 0 to the value itself, a multiple of 32 to
        a swizzle of the words, any other to the helper with a literal below 128."""
        amount = None if rhs.const is None else rhs.const[0] & 127
        if amount == 0:
            return lhs
        if amount is not None and amount % 32 == 0:  # whole words: a swizzle
            return Value.derived(_word_shift(kind, lhs.text, amount // 32), U128, lhs)
        if kind == BinOpKind.SHL:
            helper = self.u128_function("shl", u128.shift_left)
        else:
            helper = self.u128_function("shr", u128.shift_right)
        if amount is not None:
            return Value.derived(f"{helper}({lhs.text}, {u32_literal(amount)})", U128, lhs)
        return Value.derived(f"{helper}({lhs.text}, {rhs.operand}.x)", U128, lhs, rhs)

    # -- shift guard ------------------------------------------------------------

    def shift(self, kind: BinOpKind, lhs: Value, rhs: Value) -> Value:
        """`lhs << (rhs & 31)` / `lhs >> (rhs & 31)`; constant amounts are folded."""
        symbol = "<<" if kind == BinOpKind.SHL else ">>"
        if rhs.const is not None:
            amount = rhs.const[0] & 31
            if amount == 0:
                return lhs
            return Value.derived(
                f"{lhs.operand} {symbol} {u32_literal(amount)}", U32, lhs, atomic=False
            )
        return Value.derived(
            f"{lhs.operand} {symbol} ({rhs.operand} & 31u)", U32, lhs, rhs, atomic=False
        )

    # -- out-of-bounds guards ---------------------------------------------------

    def length(self, buffer: str) -> Value:
        """The logical element count of a buffer (BufLen)."""
        if buffer in self.workgroup:
            return Value.constant(U32, (self.workgroup[buffer].count,))
        field_name = self.meta.length_fields[self.storage[buffer].meta_word - META_OFFSET_WORDS]
        return Value(f"{self.meta.wgsl_name}.{field_name}", U32, cheap=True)

    def _bound(self, buffer: str) -> str:
        return self.length(buffer).text

    def _wgsl_name(self, buffer: str) -> str:
        if buffer in self.workgroup:
            return self.workgroup[buffer].wgsl_name
        return self.storage[buffer].wgsl_name

    def _atomic_workgroup(self, buffer: str) -> bool:
        """A workgroup buffer declared `array<atomic<u32>, N>`."""
        array = self.workgroup.get(buffer)
        return array is not None and array.atomic

    def element(self, buffer: str) -> DataTypeKind:
        if buffer in self.workgroup:
            return self.workgroup[buffer].element
        return self.storage[buffer].element

    def _read_element(self, buffer: str, i: str) -> str:
        """WGSL reading element `i` of `buffer` (in bounds), as a vyre value."""
        name = self._wgsl_name(buffer)
        kind = self.element(buffer)
        binding = self.storage.get(buffer)
        if binding is not None and binding.vector:
            return _vector_read(binding, i, raw=False)
        if binding is not None and binding.packed_halves:
            if binding.atomic:
                word = f"atomicLoad(&{name}[{i} >> 1u])"
            elif binding.is_uniform:
                word = f"{name}[{i} >> 3u][({i} >> 1u) & 3u]"
            else:
                word = f"{name}[{i} >> 1u]"
            return f"({word} >> (({i} & 1u) << 4u)) & 0xffffu"
        if binding is not None and binding.atomic:
            return f"atomicLoad(&{name}[{i}])"
        if self._atomic_workgroup(buffer):
            return f"atomicLoad(&{name}[{i}])"
        if binding is not None and binding.is_uniform:
            return _uniform_read(name, kind, i)
        if kind == DataTypeKind.BOOL:
            return f"u32({name}[{i}] != 0u)"
        return f"{name}[{i}]"

    def load(self, buffer: str, index: Value) -> Value:
        """`buffer[index]`, or the zero of the element type when index >= count."""
        kind = self.element(buffer)
        loaded = Value.derived(f"{self.load_helper(buffer)}({index.text})", kind, index)
        return Value(loaded.text, kind, None, loaded.buffers | {buffer}, loaded.locals)

    def load_helper(self, buffer: str) -> str:
        """The guarded load helper of `buffer`: `f(i)` is element i, 0 when OOB."""
        kind = self.element(buffer)
        value_type = wgsl_type(kind)

        def make(name: str) -> str:
            (i,) = self._params("i")
            return (
                f"// OOB guard: loads at or past the logical length of "
                f"`{self._wgsl_name(buffer)}` read 0.\n"
                f"fn {name}({i}: u32) -> {value_type} {{\n"
                f"  if ({i} < {self._bound(buffer)}) {{\n"
                f"    return {self._read_element(buffer, i)};\n"
                f"  }}\n"
                f"  return {zero_value(kind)};\n"
                f"}}"
            )

        return self._helper(f"load {buffer}", f"vyre_load_{self._wgsl_name(buffer)}", make)

    def load_word_helper(self, binding: BufferBinding) -> str:
        """The guarded helper loading an element of a vector buffer as the
        vectorised lowering keeps it in a lane variable: as stored (a Bool's word
        not reduced to 0/1, an F16/BF16's 16 bits), 0 when OOB."""
        if binding.element != DataTypeKind.BOOL:
            return self.load_helper(binding.name)
        kind = binding.element

        def make(name: str) -> str:
            (i,) = self._params("i")
            return (
                f"// OOB guard: the stored word of `{binding.wgsl_name}` (0 at or past its"
                f" logical length).\n"
                f"fn {name}({i}: u32) -> u32 {{\n"
                f"  if ({i} < {self._bound(binding.name)}) {{\n"
                f"    return {_vector_read(binding, i, raw=True)};\n"
                f"  }}\n"
                f"  return {zero_value(kind)};\n"
                f"}}"
            )

        return self._helper(
            f"load word {binding.name}", f"vyre_load_word_{binding.wgsl_name}", make
        )

    def store(self, buffer: str, index: Value, value: Value) -> str:
        """The statement storing `value` at `buffer[index]`, a no-op when OOB."""
        name = self._wgsl_name(buffer)
        value_type = wgsl_type(self.element(buffer))
        binding = self.storage.get(buffer)
        atomic = (binding is not None and binding.atomic) or self._atomic_workgroup(buffer)
        if binding is not None and binding.vector:
            return f"{self.store_vector_helper(binding)}({index.text}, {value.text});"
        if binding is not None and binding.packed_halves:
            return self._store_half(binding, index, value)

        def make(helper: str) -> str:
            i, v = self._params("i", "value")
            write = f"atomicStore(&{name}[{i}], {v})" if atomic else f"{name}[{i}] = {v}"
            return (
                f"// OOB guard: stores at or past the logical length of `{name}` do nothing.\n"
                f"fn {helper}({i}: u32, {v}: {value_type}) {{\n"
                f"  if ({i} < {self._bound(buffer)}) {{\n"
                f"    {write};\n"
                f"  }}\n"
                f"}}"
            )

        helper = self._helper(f"store {buffer}", f"vyre_store_{name}", make)
        return f"{helper}({index.text}, {value.text});"

    def load4_helper(self, buffer: str) -> str:
        """The guarded helper `f(i)` loading elements i .. i + 3 of a vec4-declared
        buffer of one-word elements (combine.py; i a multiple of 4, so i + 3
        does not wrap): one vec4 load when all four are below the logical length,
        else each lane through the scalar guard (0 past the end)."""
        binding = self.storage[buffer]
        vector = binding.vector_type
        scalar = self.load_helper(buffer)

        def make(name: str) -> str:
            (i,) = self._params("i")
            lanes = ", ".join(f"{scalar}({i}{f' + {k}u' if k else ''})" for k in range(4))
            return (
                f"// OOB guard, four consecutive elements of `{binding.wgsl_name}` (i % 4 == 0):\n"
                f"// one vec4 when all four are in bounds, else each lane guarded.\n"
                f"fn {name}({i}: u32) -> {vector} {{\n"
                f"  if ({i} + 3u < {self._bound(buffer)}) {{\n"
                f"    return {binding.wgsl_name}[{i} >> 2u];\n"
                f"  }}\n"
                f"  return {vector}({lanes});\n"
                f"}}"
            )

        return self._helper(f"load4 {buffer}", f"vyre_load4_{binding.wgsl_name}", make)

    def store4_helper(self, buffer: str) -> str:
        """The guarded helper `g(i, v)` storing elements i .. i + 3 of a
        vec4-declared buffer (combine.py; i a multiple of 4): one vec4 store when
        all four are below the logical length, else each lane through the scalar
        guard (nothing written past the end)."""
        binding = self.storage[buffer]
        vector = binding.vector_type
        scalar = self.store_vector_helper(binding)

        def make(name: str) -> str:
            i, v = self._params("i", "value")
            lanes = "".join(
                f"  {scalar}({i}{f' + {k}u' if k else ''}, {v}.{'xyzw'[k]});\n" for k in range(4)
            )
            return (
                f"// OOB guard, four consecutive elements of `{binding.wgsl_name}` (i % 4 == 0):\n"
                f"// one vec4 when all four are in bounds, else each lane guarded.\n"
                f"fn {name}({i}: u32, {v}: {vector}) {{\n"
                f"  if ({i} + 3u < {self._bound(buffer)}) {{\n"
                f"    {binding.wgsl_name}[{i} >> 2u] = {v};\n"
                f"    return;\n"
                f"  }}\n"
                f"{lanes}"
                f"}}"
            )

        return self._helper(f"store4 {buffer}", f"vyre_store4_{binding.wgsl_name}", make)

    def store_vector_helper(self, binding: BufferBinding) -> str:
        """The helper `g(i, v)` storing one element of a vector buffer (the scalar
        tail of the vectorised lowering), a no-op when OOB. The invocation owns every
        element of the words it writes, so an F16/BF16 half is replaced by a
        plain read-modify-write of its word (no atomic)."""
        name = binding.wgsl_name
        bound = self._bound(binding.name)

        def make(helper: str) -> str:
            i, v = self._params("i", "value")
            if binding.packed_halves:
                word = f"{name}[{i} >> 2u][({i} >> 1u) & 1u]"
                shift = f"(({i} & 1u) << 4u)"
                write = (
                    f"{word} = ({word} & ~(0xffffu << {shift})) | "
                    f"(({v} & 0xffffu) << {shift})"
                )
                value_type = "u32"
            else:
                write = f"{name}[{i} >> 2u][{i} & 3u] = {v}"
                value_type = wgsl_type(binding.element)
            return (
                f"// OOB guard: stores at or past the logical length of `{name}` do nothing.\n"
                f"fn {helper}({i}: u32, {v}: {value_type}) {{\n"
                f"  if ({i} < {bound}) {{\n"
                f"    {write};\n"
                f"  }}\n"
                f"}}"
            )

        return self._helper(f"store {binding.name}", f"vyre_store_{name}", make)

    def _store_half(self, binding: BufferBinding, index: Value, value: Value) -> str:
        """The statement storing the 16-bit `value` at element `index` of a packed
        F16/BF16 buffer: only its half of the word changes (strong CAS loop)."""
        name = binding.wgsl_name
        assert binding.atomic, f"packed half buffer `{name}` is stored but not atomic"
        bound = self._bound(binding.name)

        def make(helper: str) -> str:
            i, v, word, shift, bits, mask, old, result, done = self._params(
                "i", "value", "word", "shift", "bits", "mask", "old", "result", "done"
            )
            declare, mark, check = self._checked_loop_lines(done)
            return (
                f"// OOB guard + half-word store on `{name}` (two 16-bit elements per word):\n"
                f"// a compare-exchange loop replaces only half i & 1 of word i >> 1, so a\n"
                f"// neighbour stored at the same time by another invocation is kept.\n"
                f"fn {helper}({i}: u32, {v}: u32) {{\n"
                f"  if ({i} >= {bound}) {{\n"
                f"    return;\n"
                f"  }}\n"
                f"  let {word} = {i} >> 1u;\n"
                f"  let {shift} = ({i} & 1u) << 4u;\n"
                f"  let {bits} = ({v} & 0xffffu) << {shift};\n"
                f"  let {mask} = ~(0xffffu << {shift});\n"
                f"  var {old} = atomicLoad(&{name}[{word}]);\n"
                + "".join(line + "\n" for line in declare)
                + f"  loop {{\n"
                f"    let {result} = atomicCompareExchangeWeak(&{name}[{word}], {old}, "
                f"({old} & {mask}) | {bits});\n"
                f"    if ({result}.exchanged) {{\n"
                f"      {mark}break;\n"
                f"    }}\n"
                f"    {old} = {result}.old_value;\n"
                f"  }}\n"
                + "".join(line + "\n" for line in check)
                + "}"
            )

        helper = self._helper(f"store {binding.name}", f"vyre_store_{name}", make)
        return f"{helper}({index.text}, {value.text});"

    # -- loop exit checks (adapters that stop loops silently) -------------------

    def loop_check(self, truncated: str) -> list[str]:
        """Lines run right after a loop: when `truncated` (the loop left before its
        own exit condition held: the driver stopped it), set the status word the
        runtime turns into an error. Nothing where loops are never stopped."""
        if self.status is None:
            return []
        self.status_used = True
        return [f"if ({truncated}) {{", f"  atomicMax(&{self.status}[0], 1u);", "}"]

    def _checked_loop_lines(self, done: str) -> tuple[list[str], str, list[str]]:
        """(declaration, statement marking the exit, check) for a helper's retry
        loop: empty where loops are never stopped."""
        if self.status is None:
            return [], "", []
        return [f"  var {done} = false;"], f"{done} = true; ", [
            "  " + line for line in self.loop_check(f"!{done}")
        ]

    # -- atomics ----------------------------------------------------------------

    def atomic(
        self,
        kind: AtomicOpKind,
        buffer: str,
        index: Value,
        value: Value,
        expected: Value | None,
    ) -> str:
        """A call running the atomic (no-op returning 0 when OOB); yields the old value."""
        name = self._wgsl_name(buffer)
        bound = self._bound(buffer)
        if kind == AtomicOpKind.COMPARE_EXCHANGE:
            assert expected is not None

            def make_cas(helper: str) -> str:
                i, e, v, old, result, done = self._params(
                    "i", "expected", "value", "old", "result", "done"
                )
                declare, mark, check = self._checked_loop_lines(done)
                return (
                    f"// OOB guard + strong compare-exchange on `{name}`: retries the weak\n"
                    f"// exchange until it succeeds or observes a value other than expected.\n"
                    f"fn {helper}({i}: u32, {e}: u32, {v}: u32) -> u32 {{\n"
                    f"  if ({i} >= {bound}) {{\n"
                    f"    return 0u;\n"
                    f"  }}\n"
                    f"  var {old}: u32;\n"
                    + "".join(line + "\n" for line in declare)
                    + f"  loop {{\n"
                    f"    let {result} = atomicCompareExchangeWeak(&{name}[{i}], {e}, {v});\n"
                    f"    {old} = {result}.old_value;\n"
                    f"    if ({result}.exchanged || {old} != {e}) {{\n"
                    f"      {mark}break;\n"
                    f"    }}\n"
                    f"  }}\n"
                    + "".join(line + "\n" for line in check)
                    + f"  return {old};\n"
                    f"}}"
                )

            helper = self._helper(
                f"atomic cas {buffer}", f"vyre_atomic_compare_exchange_{name}", make_cas
            )
            return f"{helper}({index.text}, {expected.text}, {value.text})"

        builtin = _ATOMIC_BUILTINS[kind]

        def make(helper: str) -> str:
            i, v = self._params("i", "value")
            return (
                f"// OOB guard: {builtin} past the logical length of `{name}` does nothing, "
                f"returns 0.\n"
                f"fn {helper}({i}: u32, {v}: u32) -> u32 {{\n"
                f"  if ({i} < {bound}) {{\n"
                f"    return {builtin}(&{name}[{i}], {v});\n"
                f"  }}\n"
                f"  return 0u;\n"
                f"}}"
            )

        helper = self._helper(
            f"atomic {kind.value} {buffer}", f"vyre_atomic_{kind.value}_{name}", make
        )
        return f"{helper}({index.text}, {value.text})"

    # -- Category C intrinsics ----------------------------------------------------

    def intrinsic_call(self, builtin: str, args: list[Value], kind: DataTypeKind) -> Value:
        """`builtin(args...)`, with bit-field offset/count clamped (see module doc)."""
        field_at = {"extractBits": 1, "insertBits": 2}.get(builtin)
        texts = [arg.text for arg in args]
        if field_at is not None and len(args) == field_at + 2:
            offset, count = args[field_at], args[field_at + 1]
            if offset.const is not None:
                o = min(offset.const[0], 32)
                texts[field_at] = u32_literal(o)
                if count.const is not None:
                    texts[field_at + 1] = u32_literal(min(count.const[0], 32 - o))
                else:
                    texts[field_at + 1] = f"min({count.text}, {u32_literal(32 - o)})"
            else:
                clamped = f"min({offset.text}, 32u)"
                texts[field_at] = clamped
                texts[field_at + 1] = f"min({count.text}, 32u - {clamped})"
        return Value.derived(f"{builtin}({', '.join(texts)})", kind, *args)

    # -- constant tables ----------------------------------------------------------

    def table_lookup(self, words: tuple[int, ...], index: Value) -> Value:
        """Word `index` of a constant table, 0 past its end: a read of the kernel's
        table buffer (layout.py `TableBuffer`: every distinct table once,
        concatenated) within the table's bounds. The words come from memory, so
        no shader compiler sees them as constants: a table holding a ±1.0 pattern
        needs no opaque zero (opaque_constants.py)."""
        offset = self.tables.get(words)
        if offset is None:
            offset = len(self.table_words)
            self.tables[words] = offset
            self.table_words.extend(words)
        if self.table_name is None:
            self.table_name = self.namer.claim("vyre_tables")
        buffer = self.table_name
        last = u32_literal(len(words) - 1)
        (i,) = self._params("i")
        element = f"min({i}, {last})" if offset == 0 else f"{u32_literal(offset)} + min({i}, {last})"
        helper = self._helper(
            f"lookup:{offset}:{len(words)}",
            "vyre_table_at",
            lambda name: "\n".join(
                [
                    f"// Word {i} of the table at word {offset} of {buffer}"
                    f" ({len(words)} words), 0 past its end.",
                    f"fn {name}({i}: u32) -> u32 {{",
                    f"  return select(0u, {buffer}[{element}], {i} <= {last});",
                    "}",
                ]
            ),
        )
        return Value.derived(f"{helper}({index.text})", U32, index)

    # -- workgroup memory zeroing -------------------------------------------------

    def zero_workgroup_memory(
        self, local_index: str, invocations: int, counter: str
    ) -> list[str]:
        """Entry-point lines clearing every workgroup buffer, then a barrier."""
        if not self.workgroup:
            return []
        lines = [
            "// Workgroup memory starts at zero (wgpu-native does not zero it):",
            "// the invocations clear it cooperatively, then wait for each other.",
        ]
        for array in self.workgroup.values():
            if array.atomic:
                clear = f"atomicStore(&{array.wgsl_name}[{counter}], 0u);"
            else:
                clear = f"{array.wgsl_name}[{counter}] = {storage_zero(array.wgsl_element_type)};"
            if self.status is not None:  # a checked loop (see loop_check)
                lines += [
                    "{",
                    f"  var {counter}: u32 = {local_index};",
                    "  loop {",
                    f"    if ({counter} >= {array.count}u) {{",
                    "      break;",
                    "    }",
                    f"    {clear}",
                    f"    {counter} = {counter} + {invocations}u;",
                    "  }",
                    *("  " + line for line in self.loop_check(f"{counter} < {array.count}u")),
                    "}",
                ]
                continue
            lines += [
                f"for (var {counter}: u32 = {local_index}; {counter} < {array.count}u; "
                f"{counter} = {counter} + {invocations}u) {{",
                f"  {clear}",
                "}",
            ]
        lines.append("workgroupBarrier();")
        return lines


def _vector_read(binding: BufferBinding, i: str, *, raw: bool) -> str:
    """WGSL reading element `i` of a vector buffer (layout.py), in bounds: the
    vyre value, or with `raw` the stored word (a Bool not reduced to 0/1)."""
    name = binding.wgsl_name
    if binding.packed_halves:
        return f"({name}[{i} >> 2u][({i} >> 1u) & 1u] >> (({i} & 1u) << 4u)) & 0xffffu"
    element = f"{name}[{i} >> 2u][{i} & 3u]"
    if binding.element == DataTypeKind.BOOL and not raw:
        return f"u32({element} != 0u)"
    return element


def _uniform_read(name: str, kind: DataTypeKind, i: str) -> str:
    """Element `i` of a uniform buffer packed four words per vec4 (see layout.py)."""
    words = kind.facts.words
    if words == 4:
        return f"{name}[{i}]"
    if words == 2:
        return f"select({name}[{i} >> 1u].xy, {name}[{i} >> 1u].zw, ({i} & 1u) == 1u)"
    word = f"{name}[{i} >> 2u][{i} & 3u]"
    if kind == DataTypeKind.I32:
        return f"bitcast<i32>({word})"
    if kind == DataTypeKind.BOOL:
        return f"u32({word} != 0u)"
    return word


def _word_shift(kind: BinOpKind, value: str, words: int) -> str:
    """A U128 (`vec4<u32>`, `x` the low word) shifted by `words` whole words
    (1-3): the lanes moved, zeros shifted in."""
    lanes = "xyzw"
    zeros = ", ".join(["0u"] * words)
    if kind == BinOpKind.SHL:
        return f"vec4<u32>({zeros}, ({value}).{lanes[: 4 - words]})"
    return f"vec4<u32>(({value}).{lanes[words:]}, {zeros})"
