"""C++ identifiers for IR names that clash with nothing the emitted kernel can see.

A name is kept as written when it is all lowercase (``[a-z][a-z0-9_]*``), does not end in
``_t`` (POSIX reserves those; the library's types ``int64_t``, ``event_t``, ``bfloat16_t``...),
is no C++ keyword and no name in :data:`RESERVED` (identifiers the output uses unqualified, and
every lowercase macro the PTO-ISA headers and the C/C++ headers they include define, listed by
``clang++-19 -std=c++20 -D__CPU_SIM -E -dM`` over ``pto/pto-inst.hpp`` at the pinned commit).
Every macro with an uppercase letter (``INT64_MAX``, ``EVENT_ID0``, ``AICORE``, ``M_PIf``) is
avoided because a kept name has none. Any other name is lowercased, its other characters become
``_``, and ``_v`` is appended; :class:`Names` then adds ``_1``, ``_2``... until the result is
unused in its scope.
"""

from __future__ import annotations

import re

KEYWORDS = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch
    char char8_t char16_t char32_t class compl concept const consteval constexpr constinit
    const_cast continue co_await co_return co_yield decltype default delete do double
    dynamic_cast else enum explicit export extern false float for friend goto if inline int long
    mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid typename
    union unsigned using virtual void volatile wchar_t while xor xor_eq""".split())

# Lowercase macros visible in a kernel TU (clang++-19 -E -dM over pto/pto-inst.hpp, pinned copy).
LOWERCASE_MACROS = frozenset("""alloca assert assert_perror be16toh be32toh be64toh errno
    htobe16 htobe32 htobe64 htole16 htole32 htole64 issubnormal le16toh le32toh le64toh
    math_errhandling offsetof pthread_cleanup_pop pthread_cleanup_pop_restore_np
    pthread_cleanup_push pthread_cleanup_push_defer_np sched_priority set_mask_norm
    set_vector_mask stderr stdin stdout strdupa strndupa timeradd timerclear timercmp timerisset
    timersub""".split())

# Identifiers the printed code (and run-cpp's main) refers to without qualification.
RESERVED = KEYWORDS | LOWERCASE_MACROS | frozenset("""pto std half main set_flag wait_flag
    pipe_barrier tilesched_rt argc argv""".split())

_KEEP = re.compile(r"[a-z][a-z0-9_]*")


def is_safe(name: str) -> bool:
    """Whether ``name`` may be printed as written."""
    return bool(_KEEP.fullmatch(name)) and not name.endswith("_t") and "__" not in name \
        and name not in RESERVED


def sanitize(text: str) -> str:
    """A safe identifier derived from ``text`` (not yet unique)."""
    if is_safe(text):
        return text
    base = re.sub(r"[^a-z0-9_]", "_", text.lower())
    base = re.sub(r"_+", "_", base).strip("_") or "v"
    if not base[0].isalpha():
        base = "v_" + base
    return base + "_v"


class Names:
    """Unique safe identifiers within one scope; ``taken`` names (an outer scope's) are avoided."""

    def __init__(self, taken: set[str] | frozenset[str] = frozenset()):
        self.used: set[str] = set(taken)

    def claim(self, text: str) -> str:
        base = sanitize(text)
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        return name

    def claim_all(self, texts: list[str]) -> list[str]:
        """Names for ``texts`` in order, the ones already safe first (so ``@k_1`` keeps its
        name even when ``@"k-1"`` comes before it)."""
        out: list[str | None] = [None] * len(texts)
        for k, text in enumerate(texts):
            if is_safe(text) and text not in self.used:
                out[k] = self.claim(text)
        for k, text in enumerate(texts):
            if out[k] is None:
                out[k] = self.claim(text)
        return [name for name in out if name is not None]
