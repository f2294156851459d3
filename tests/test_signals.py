"""Ctrl-C and SIGTERM stop a command cleanly wherever they come (bgnet.errors.signals_stop_cleanly).

A compiled (numba) function that returns an array calls back into numba's Python code to unpickle the
array's dtype; a signal that arrives while the compiled code runs is handled there, at the first line of
Python, and an exception raised in that callback comes out of the compiled function as a ``SystemError``:
a traceback instead of a clean stop, and a training run's checkpoint-on-stop skipped.
"""

import os
import signal
import sys
import threading

import numpy as np
import pytest
from numba import njit

from bgnet.errors import Terminated, signals_stop_cleanly


@njit(cache=False)
def _busy(n):
    s = 0.0
    for i in range(n):
        s += np.sqrt(i)
    out = np.empty(3)
    out[:] = s
    return out, out.copy()  # arrays returned: boxing them calls numba's Python code


def _returned(n):
    return _busy(n)  # the stop comes at this frame's last instruction, its return


def _stop_in_compiled_code(sig: int, delay: float, call=_busy) -> str:
    """What a loop of compiled calls raised on a signal sent ``delay`` seconds after it started (the loop
    under :func:`signals_stop_cleanly`)."""
    _busy(10)  # compiled before the clock starts
    timer = threading.Timer(delay, os.kill, (os.getpid(), sig))
    with signals_stop_cleanly():
        try:
            timer.start()
            while True:
                call(200_000)
        except Terminated:
            return "Terminated"
        except KeyboardInterrupt:
            return "KeyboardInterrupt"
        except SystemError:  # the signal's exception lost inside numba's callback
            return "SystemError"
        finally:
            timer.join()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_compiled_code_stops_as_an_interrupt_never_a_system_error(sig):
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # (as pytest runs tests)
    seen = [_stop_in_compiled_code(sig, 0.005 + 0.003 * k, (_busy, _returned)[k % 2]) for k in range(12)]
    want = "Terminated" if sig == signal.SIGTERM else "KeyboardInterrupt"
    assert seen == [want] * 12, seen
    assert sys.gettrace() is None  # the trace that raised it has removed itself


def test_the_stop_comes_inside_the_try_around_the_compiled_call():
    # The compiled call is the last statement of a try in a loop: the stop must come before the loop's
    # next line (raised at a line, it would come outside the try).
    _busy(10)
    caught = []
    timer = threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGINT))
    with signals_stop_cleanly():
        try:
            timer.start()
            for _ in range(100_000):
                try:
                    _busy(200_000)
                except KeyboardInterrupt:
                    caught.append("inside")
                    break
        except KeyboardInterrupt:
            caught.append("outside")
        finally:
            timer.join()
    assert caught == ["inside"]
    assert sys.gettrace() is None


def test_a_trace_function_set_before_is_kept():
    # Under a debugger or a coverage tool a signal in compiled code is raised where it comes (a SystemError,
    # as before the fix), and their trace stays: deferring through a trace function of ours would end theirs
    # (CPython clears tracing when a trace function raises).
    def tracer(frame, event, arg):
        return None

    sys.settrace(tracer)
    try:
        seen = _stop_in_compiled_code(signal.SIGINT, 0.01)
        assert sys.gettrace() is tracer, seen
    finally:
        sys.settrace(None)
    assert seen in ("KeyboardInterrupt", "SystemError")


def test_the_handlers_before_are_put_back_and_an_ignored_sigint_stays_ignored():
    term_before = signal.getsignal(signal.SIGTERM)
    int_before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job's
    try:
        with signals_stop_cleanly():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not term_before
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with signals_stop_cleanly():
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGINT)  # plain Python code: raised where it came
                for _ in range(1000):  # (the handler runs at the next instruction)
                    pass
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.getsignal(signal.SIGTERM) is term_before
    finally:
        signal.signal(signal.SIGINT, int_before)
