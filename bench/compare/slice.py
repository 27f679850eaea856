#!/usr/bin/env python3
"""slice.py US TID... : give each thread (SCHED_OTHER, its nice kept) an EEVDF slice of US microseconds
(Linux >= 6.12 reads sched_attr.sched_runtime as the slice of a fair task). slice.py get TID... prints them."""
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
SETATTR, GETATTR = 314, 315  # x86_64
def get(tid):
    buf = ctypes.create_string_buffer(56)
    if libc.syscall(GETATTR, tid, buf, 56, 0) != 0:
        raise OSError(ctypes.get_errno(), f"sched_getattr {tid}")
    return struct.unpack("IIQiIQQQII", buf.raw)
def set_slice(tid, us):
    size, policy, flags, nice, prio, runtime, deadline, period, umin, umax = get(tid)
    attr = struct.pack("IIQiIQQQII", 56, policy, 0, nice, prio, us * 1000, 0, 0, 0, 0)
    buf = ctypes.create_string_buffer(attr, 56)
    if libc.syscall(SETATTR, tid, buf, 0) != 0:
        raise OSError(ctypes.get_errno(), f"sched_setattr {tid} slice {us} us: {os.strerror(ctypes.get_errno())}")
if sys.argv[1] == "get":
    for t in sys.argv[2:]: print(t, get(int(t)))
else:
    for t in sys.argv[2:]: set_slice(int(t), int(sys.argv[1]))
