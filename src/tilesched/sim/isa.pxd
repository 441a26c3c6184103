# The instruction set of isa.py for the compiled modules (native/*.pyx): the same constants as C
# enums, so a compiled loop compares opcodes without a Python object. tests/sim/test_isa.py holds
# every value here equal to isa.py's (no build needed); isa.py's docstring describes the layout.

cdef enum:  # issuer opcodes
    ENQ = 0
    INLINE = 1
    ISET = 2
    IWAIT = 3
    BALL = 4
    COMMIT = 5
    WAITG = 6
    BAR = 7
    PRIO = 8
    NOP = 9
    MARK = 10

cdef enum:  # unit item opcodes
    TILE = 0
    SET = 1
    WAIT = 2
    PIPE_BARRIER = 3

cdef enum:  # loop boundary kinds of a MARK instruction
    ENTER = 0
    ITER = 1
    EXIT = 2
