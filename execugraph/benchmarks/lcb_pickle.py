"""LiveCodeBench's hidden tests: base64 of zlib of a pickled JSON string, read without ever running pickle.

Why not `pickle.loads`: a pickle is a program (it may name any importable callable and call
it), and a problem file is untrusted. The only pickle LiveCodeBench writes there is one
plain `str` (protocol 4: PROTO, FRAME, BINUNICODE, MEMOIZE, STOP). `pickled_string` walks the
opcodes with `pickletools.genops` (which decodes, never executes) and accepts exactly that
shape, in any protocol; anything else (a list, a global, a call, a second value) is refused
with what it held.
"""

from __future__ import annotations

import base64
import binascii
import pickletools
import zlib

MAX_UNPACKED_BYTES = 512 * 1024**2  # what one problem's hidden tests may unpack to

_STRING_OPS = frozenset({"BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "UNICODE"})
_BOOKKEEPING_OPS = frozenset({"PROTO", "FRAME", "MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"})
_WHAT = {
    "GLOBAL": "a reference to {arg}", "STACK_GLOBAL": "a reference to an importable object",
    "REDUCE": "a call", "BUILD": "an object's state", "INST": "an object", "OBJ": "an object",
    "NEWOBJ": "an object", "NEWOBJ_EX": "an object", "EMPTY_LIST": "a list", "LIST": "a list",
    "EMPTY_DICT": "a dict", "DICT": "a dict", "EMPTY_TUPLE": "a tuple", "TUPLE": "a tuple", "TUPLE1": "a tuple",
    "TUPLE2": "a tuple", "TUPLE3": "a tuple", "EMPTY_SET": "a set", "FROZENSET": "a frozenset",
    "BINBYTES": "bytes", "SHORT_BINBYTES": "bytes", "BINBYTES8": "bytes", "BYTEARRAY8": "a bytearray",
    "BININT": "an integer", "BININT1": "an integer", "BININT2": "an integer", "INT": "an integer",
    "LONG": "an integer", "LONG1": "an integer", "LONG4": "an integer", "BINFLOAT": "a float", "FLOAT": "a float",
    "NONE": "None", "NEWTRUE": "a boolean", "NEWFALSE": "a boolean", "PERSID": "a persistent id",
    "BINPERSID": "a persistent id", "EXT1": "an extension object", "EXT2": "an extension object",
    "EXT4": "an extension object",
}


class PickleRefused(ValueError):
    """The hidden tests are not a base64/zlib/pickle of one plain string; the message says what they are."""


def _what(name: str, arg: object) -> str:
    return _WHAT.get(name, f"the opcode {name}").format(arg=arg)


def pickled_string(data: bytes) -> str:
    """The one plain `str` a pickle holds; PickleRefused for anything else (nothing is ever executed)."""
    strings: list[str] = []
    end = -1
    try:
        for op, arg, pos in pickletools.genops(data):
            if op.name == "STOP":
                end = pos + 1
                break
            if op.name in _BOOKKEEPING_OPS:
                continue
            if op.name in _STRING_OPS and isinstance(arg, str):
                strings.append(arg)
                continue
            named = ".".join(strings[-2:]) if op.name == "STACK_GLOBAL" and len(strings) >= 2 else arg
            what = f"a reference to {named}" if op.name == "STACK_GLOBAL" and named else _what(op.name, arg)
            raise PickleRefused(f"the pickle holds {what}, not a plain string; refused without unpickling "
                                "(only a pickled str is accepted)")
    except PickleRefused:
        raise
    except Exception as exc:  # genops raises ValueError and others on a damaged stream
        raise PickleRefused(f"not a readable pickle ({type(exc).__name__}: {exc})") from None
    if end < 0:
        raise PickleRefused("the pickle ends without its STOP opcode (cut short)")
    if len(strings) != 1:
        raise PickleRefused("the pickle holds no string" if not strings else
                            "the pickle holds more than one string; only one plain string is accepted")
    if data[end:].strip():
        raise PickleRefused(f"{len(data) - end} byte(s) follow the pickle's end")
    return strings[0]


def decode_private_tests(text: str) -> str:
    """The JSON text of LiveCodeBench's `private_test_cases`: base64 -> zlib -> a pickled plain string."""
    try:
        packed = base64.b64decode(text.encode("ascii"))  # lenient, as LiveCodeBench decodes it
    except (UnicodeEncodeError, binascii.Error) as exc:
        raise PickleRefused(f"neither JSON nor base64 text ({exc})") from None
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, MAX_UNPACKED_BYTES)
    except zlib.error as exc:
        raise PickleRefused(f"base64 of something that is not zlib data ({exc})") from None
    if inflater.unconsumed_tail:
        raise PickleRefused(f"unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
    if not inflater.eof:
        raise PickleRefused("the zlib data is cut short")
    return pickled_string(data)
