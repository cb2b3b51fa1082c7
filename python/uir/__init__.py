"""uir: the .uir loop language from Python, over libuir.so (docs/python.md).

    import uir, numpy as np
    prog = uir.load("k.uir")                    # or uir.loads(text); raises uir.Error
    out = prog.run(inputs={"A": a}, engine="auto", threads=2)  # name -> numpy array
    c_src = prog.render(); cuda_src = prog.render_cuda()       # render_cuda: uir.NotKernelForm
    prog.check(strict=False)                    # raises uir.Error
    svg = prog.footprint("f.svg")               # the footprint picture, also written to f.svg

Everything is done by the library, as the `uir` command does it: the same checks, the same
messages (a uir.Error's str() is the command's diagnostic, source line and caret included),
the same bits. The module calls the library through ctypes (nothing is compiled at import);
ctypes releases the GIL for every call. A run happens in a child process of the library:
Python waits for it in slices of 50 ms, so Ctrl-C (KeyboardInterrupt) or a timeout ends it at
once, whatever engine runs it.
"""

import ctypes
import os
import signal
import time
from collections import namedtuple

import numpy as np

__all__ = ['Error', 'NotKernelForm', 'UsageError', 'InternalError', 'Timeout', 'Program',
           'Buffer', 'load', 'loads']

# ---- the library ----


def _library_path():
    env = os.environ.get('UIR_LIBRARY')
    if env:
        return env
    from . import _libpath  # written by meson: the build tree's library, or the installed one
    return _libpath.LIBRARY


class _Error(ctypes.Structure):
    _fields_ = [('status', ctypes.c_int), ('code', ctypes.c_char * 8), ('line', ctypes.c_int),
                ('col', ctypes.c_int), ('message', ctypes.c_char * 1024),
                ('signal', ctypes.c_int), ('text', ctypes.c_void_p)]


class _Input(ctypes.Structure):
    _fields_ = [('name', ctypes.c_char_p), ('data', ctypes.c_void_p), ('dtype', ctypes.c_char_p),
                ('count', ctypes.c_int64), ('fortran_order', ctypes.c_int)]


class _RunSpec(ctypes.Structure):
    _fields_ = [('engine', ctypes.c_char_p), ('threads', ctypes.c_int), ('flags', ctypes.c_uint),
                ('inputs', ctypes.POINTER(_Input)), ('ninputs', ctypes.c_int)]


# include/uir/uir.h
_CHECK_STRICT, _CHECK_NO_EXACT = 1, 2
_RUN_NO_BOUNDS_CHECK, _RUN_NO_OPT, _RUN_NO_CACHE, _RUN_RACECHECK = 1, 2, 4, 8
_EXIT_NOT_KERNEL, _EXIT_USAGE, _EXIT_INTERNAL = 2, 64, 70


def _open_library():
    lib = ctypes.CDLL(_library_path())
    P, E = ctypes.c_void_p, ctypes.POINTER(_Error)
    sig = {
        'uir_open': (P, [ctypes.c_char_p, E]),
        'uir_open_text': (P, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, E]),
        'uir_close': (None, [P]),
        'uir_verify': (ctypes.c_int, [P, ctypes.c_uint, E]),
        'uir_render_text': (ctypes.c_int, [P, ctypes.c_bool, ctypes.c_bool,
                                           ctypes.POINTER(ctypes.c_void_p), E]),
        'uir_footprint_text': (ctypes.c_int, [P, ctypes.c_uint, ctypes.c_char_p,
                                              ctypes.POINTER(ctypes.c_void_p), E]),
        'uir_text_free': (None, [ctypes.c_void_p]),
        'uir_error_clear': (None, [E]),
        'uir_buffer_count': (ctypes.c_int, [P]),
        'uir_buffer_name': (ctypes.c_char_p, [P, ctypes.c_int]),
        'uir_buffer_type': (ctypes.c_int, [P, ctypes.c_int]),
        'uir_buffer_size': (ctypes.c_int64, [P, ctypes.c_int]),
        'uir_type_npy_descr': (ctypes.c_char_p, [ctypes.c_int]),
        'uir_run_start': (P, [P, ctypes.POINTER(_RunSpec), E]),
        'uir_job_wait': (ctypes.c_int, [P, ctypes.c_int]),
        'uir_job_finish': (ctypes.c_int, [P, E]),
        'uir_job_buffer': (ctypes.c_void_p, [P, ctypes.c_int]),
        'uir_job_free': (None, [P]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


_lib = _open_library()

# ---- errors ----


class Error(Exception):
    """What `uir` would have reported: str() is its diagnostics (standard error's text).

    code: the first error's code ("E0503"), or None for an error without one (a usage
    error, out of memory, an internal error); line, col: its place (1-based), or None;
    message: its message (after `error[CODE]: `), or the first line printed; status: the
    exit status `uir` would have had (1, 2, 64, 70); text: all it printed."""

    def __init__(self, message, code=None, line=None, col=None, status=1, text=None, signal=0):
        self.code, self.line, self.col, self.message = code, line, col, message
        self.status, self.signal = status, signal
        self.text = text if text is not None else message + '\n'
        super().__init__(self.text.rstrip('\n'))

    def __str__(self):
        return self.text.rstrip('\n')


class NotKernelForm(Error):
    """render_cuda() of a valid program that is not in kernel form; message is the reason."""


class UsageError(Error, ValueError):
    """A wrong argument, as `uir run` words it for a wrong option (status 64)."""


class InternalError(Error):
    """A bug in uir (status 70), or the run's process ended by a signal (signal is set)."""


class Timeout(Error, TimeoutError):
    """run(timeout=...) ended the run."""


def _take_error(err):
    """The exception of ERR (a _Error a call filled in), which it frees."""
    text = ctypes.string_at(err.text).decode('utf-8', 'replace') if err.text else ''
    code = err.code.decode('ascii', 'replace') or None
    message = err.message.decode('utf-8', 'replace')
    status, sig = err.status, err.signal
    line = err.line or None
    col = err.col or None
    _lib.uir_error_clear(ctypes.byref(err))
    if sig == signal.SIGINT:
        raise KeyboardInterrupt
    cls = {_EXIT_NOT_KERNEL: NotKernelForm, _EXIT_USAGE: UsageError,
           _EXIT_INTERNAL: InternalError}.get(status, Error)
    return cls(message, code=code, line=line, col=col, status=status, text=text or None,
               signal=sig)


# ---- programs ----

Buffer = namedtuple('Buffer', 'name dtype size')
Buffer.__doc__ = 'A buffer of a program: its name, numpy dtype and element count.'


def load(path):
    """The program in the file PATH (parsed and typed; checked by check(), run(), render()).
    Raises uir.Error (E0001: the file does not read, E01xx, E02xx)."""
    err = _Error()
    handle = _lib.uir_open(os.fsencode(path), ctypes.byref(err))
    if not handle:
        raise _take_error(err)
    _lib.uir_error_clear(ctypes.byref(err))
    return Program(handle, os.fsdecode(path))


def loads(text, name='<string>'):
    """The program of TEXT (str or bytes), named NAME in diagnostics; a `file "x.npy"` INIT
    is found relative to NAME's directory. Raises uir.Error as load() does."""
    data = text.encode('utf-8') if isinstance(text, str) else bytes(text)
    err = _Error()
    handle = _lib.uir_open_text(os.fsencode(name), data, len(data), ctypes.byref(err))
    if not handle:
        raise _take_error(err)
    _lib.uir_error_clear(ctypes.byref(err))
    return Program(handle, name)


class Program:
    """A loaded program. Each check, rendering and run works on a fresh copy of its text,
    so a Program can be run any number of times, from several threads at once."""

    def __init__(self, handle, name):
        self._handle = handle
        self.name = name
        n = _lib.uir_buffer_count(handle)
        bufs = []
        for i in range(n):
            t = _lib.uir_buffer_type(handle, i)
            bufs.append(Buffer(_lib.uir_buffer_name(handle, i).decode('utf-8', 'replace'),
                               np.dtype(_lib.uir_type_npy_descr(t).decode('ascii')),
                               _lib.uir_buffer_size(handle, i)))
        self._buffers = bufs
        self.buffers = {b.name: b for b in bufs}  # in declaration order

    def __repr__(self):
        return '<uir.Program %r: %s>' % (self.name, ', '.join(
            '%s %s[%d]' % (b.name, b.dtype.name, b.size) for b in self._buffers))

    def close(self):
        """Frees the program now (else when it is garbage collected)."""
        handle, self._handle = self._handle, None
        if handle:
            _lib.uir_close(handle)

    def __del__(self):
        if getattr(self, '_handle', None) and _lib is not None:
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _h(self):
        if not self._handle:
            raise ValueError('the program is closed')
        return self._handle

    def check(self, strict=False, exact=True):
        """`uir check` (`--strict` when STRICT, `--no-exact` when not EXACT): returns None
        when the program is valid, else raises uir.Error (its first error's code: E03xx,
        E04xx, E05xx)."""
        flags = (_CHECK_STRICT if strict else 0) | (0 if exact else _CHECK_NO_EXACT)
        err = _Error()
        if _lib.uir_verify(self._h(), flags, ctypes.byref(err)):
            raise _take_error(err)
        _lib.uir_error_clear(ctypes.byref(err))

    def footprint(self, path=None, *, strict=False, exact=True):
        """`uir check --footprint` (docs/footprint.md): the footprint picture of the program,
        what each iteration of every checked code reads and writes, as SVG text (a str);
        with PATH (str or os.PathLike) also written there, as the command writes it (no
        partial file). STRICT and EXACT as for check(). The picture is drawn whether or not
        the program passes the race check: a race does not raise, it is the picture's red
        cells (the <svg> element's data-collisions attribute counts them; check() raises
        it). Raises uir.Error when there is no picture: the check stops before the race
        rules (its error: E03xx, E04xx), or PATH cannot be written (no code)."""
        flags = (_CHECK_STRICT if strict else 0) | (0 if exact else _CHECK_NO_EXACT)
        cpath = None if path is None else os.fsencode(path)
        err = _Error()
        out = ctypes.c_void_p()
        if _lib.uir_footprint_text(self._h(), flags, cpath, ctypes.byref(out), ctypes.byref(err)):
            raise _take_error(err)
        _lib.uir_error_clear(ctypes.byref(err))  # the check's verdict: the picture shows it
        try:
            return ctypes.string_at(out).decode('utf-8', 'surrogateescape')
        finally:
            _lib.uir_text_free(out)

    def _render(self, cuda, main):
        err = _Error()
        out = ctypes.c_void_p()
        if _lib.uir_render_text(self._h(), cuda, bool(main), ctypes.byref(out), ctypes.byref(err)):
            raise _take_error(err)
        _lib.uir_error_clear(ctypes.byref(err))
        try:
            return ctypes.string_at(out).decode('utf-8', 'surrogateescape')
        finally:
            _lib.uir_text_free(out)

    def render(self, main=False):
        """`uir render` (`--main` when MAIN): the program as portable C11, a str. Raises
        uir.Error for a wrong program."""
        return self._render(False, main)

    def render_cuda(self, main=False):
        """`uir render-cuda` (`--main` when MAIN): CUDA C++, a str. Raises
        uir.NotKernelForm (message: the reason) for a valid program not in kernel form,
        uir.Error for a wrong one."""
        return self._render(True, main)

    def run(self, inputs=None, engine='auto', threads=None, *, bounds_check=True, opt=True,
            cache=True, racecheck=False, timeout=None):
        """`uir run`: checks the program, runs it and returns every buffer after the run, a
        dict (in declaration order) of name -> 1-D numpy array of the buffer's dtype.

        inputs: name -> array (anything numpy.asarray takes), the buffer's new starting
        contents (`--input`): its dtype must be the buffer's, its size the buffer's element
        count, any shape, in C order (a Fortran-order array is refused, as numpy.save would
        write it with fortran_order True); else uir.Error E0203. engine: "auto", "jit" or
        "interp" (`--engine`); threads: 1 to 1024 (`--threads`; None: UIR_THREADS, else the
        core count); bounds_check=False: `--no-bounds-check`; opt=False: `--no-opt`;
        cache=False: `--no-cache`; racecheck=True: `--racecheck`. timeout: seconds after
        which the run is ended (uir.Timeout). Raises uir.Error for anything `uir run` reports
        (E0601 for a fault at run time, ...), uir.UsageError for a wrong argument,
        KeyboardInterrupt when Ctrl-C ends the run."""
        handle = self._h()
        inputs = {} if inputs is None else dict(inputs)
        if not isinstance(engine, str):
            raise TypeError('engine must be "auto", "jit" or "interp"')
        if threads is None:
            threads = 0
        elif isinstance(threads, bool) or not isinstance(threads, int):
            raise TypeError('threads must be an int from 1 to 1024, or None')
        elif not -2**31 <= threads < 2**31:
            threads = -1  # out of range: the library says so
        if timeout is not None:
            if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
                raise TypeError('timeout must be a number of seconds, or None')
            if not timeout > 0:
                raise ValueError('timeout must be more than 0 seconds, found %r' % (timeout,))
        keep = []
        cin = (_Input * max(len(inputs), 1))()
        for i, (name, value) in enumerate(inputs.items()):
            if not isinstance(name, str):
                raise TypeError('input names must be str, found %r' % (name,))
            a = np.asarray(value)
            fortran = a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous
            if not fortran:
                a = np.ascontiguousarray(a)  # C order, as numpy.save writes a view
            keep.append(a)
            cin[i] = _Input(name.encode('utf-8'), a.ctypes.data, a.dtype.str.encode('ascii'),
                            a.size, int(fortran))
        flags = ((0 if bounds_check else _RUN_NO_BOUNDS_CHECK) | (0 if opt else _RUN_NO_OPT) |
                 (0 if cache else _RUN_NO_CACHE) | (_RUN_RACECHECK if racecheck else 0))
        spec = _RunSpec(engine.encode('utf-8'), threads, flags, cin, len(inputs))
        err = _Error()
        job = _lib.uir_run_start(handle, ctypes.byref(spec), ctypes.byref(err))
        if not job:
            raise _take_error(err)
        del keep  # the run's process has its own copy
        try:
            deadline = None if timeout is None else time.monotonic() + timeout
            while not _lib.uir_job_wait(job, 50 if deadline is None else  # Ctrl-C: KeyboardInterrupt between slices
                                        max(1, min(50, int((deadline - time.monotonic()) * 1000) + 1))):
                if deadline is not None and time.monotonic() >= deadline:
                    raise Timeout('the run took more than %g s and was ended' % timeout,
                                  status=_EXIT_INTERNAL)
            if _lib.uir_job_finish(job, ctypes.byref(err)):
                raise _take_error(err)
            _lib.uir_error_clear(ctypes.byref(err))
            out = {}
            for i, b in enumerate(self._buffers):
                a = np.empty(b.size, dtype=b.dtype)
                if a.nbytes:
                    ctypes.memmove(a.ctypes.data, _lib.uir_job_buffer(job, i), a.nbytes)
                out[b.name] = a
            return out
        finally:
            _lib.uir_job_free(job)  # ends the run's process when it still runs
