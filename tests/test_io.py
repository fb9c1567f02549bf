"""Atomic outputs and interrupts at safe points."""

import os
import signal
import stat
import tempfile

import pytest

from seqspectral.interrupts import deferred_interrupts
from seqspectral.io import OutputPathError, atomic_open, atomic_write_text, check_output_path


def listing(directory):
    return sorted(p.name for p in directory.iterdir())


def test_success_replaces_failure_leaves_the_target_untouched(tmp_path):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "first\n")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as f:
            f.write("partial")
            raise RuntimeError("boom")
    assert target.read_text() == "first\n" and listing(tmp_path) == ["out.txt"]
    with atomic_open(target, "wb") as f:
        f.write(b"second\n")
    assert target.read_bytes() == b"second\n" and listing(tmp_path) == ["out.txt"]


def test_new_file_gets_the_umask_mode_replaced_file_keeps_its_mode(tmp_path):
    mask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "new.txt", "x")
        assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644
        locked = tmp_path / "locked.txt"
        locked.write_text("old")
        locked.chmod(0o440)
        atomic_write_text(locked, "new")
        assert locked.read_text() == "new" and stat.S_IMODE(locked.stat().st_mode) == 0o440
    finally:
        os.umask(mask)


def test_interrupt_right_after_mkstemp_leaves_no_temp_file(tmp_path, monkeypatch):
    real = tempfile.mkstemp

    def mkstemp_then_interrupt(*args, **kwargs):
        created = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)  # lands while the file exists but is not yet recorded
        return created

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        with atomic_open(tmp_path / "out.txt") as f:
            f.write("never")
    assert listing(tmp_path) == []


def test_deferred_interrupts_deliver_at_the_end(tmp_path):
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupts():
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("after the signal")  # the body goes on
    assert reached == ["after the signal"]
    with deferred_interrupts():  # nothing received: nothing raised, handlers restored
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_destination_checked_naming_the_users_path(tmp_path):
    for path, needle in ((tmp_path / "no" / "such" / "out.txt", "does not exist"), (tmp_path, "is a directory"),
                         (tmp_path / ("n" * 300), "too long")):
        with pytest.raises(OutputPathError) as info:
            check_output_path(path)
        assert str(path) in str(info.value) and needle in str(info.value) and info.value.user_facing
    with pytest.raises(OutputPathError):
        atomic_write_text(tmp_path / "missing" / "x.txt", "x")
    assert listing(tmp_path) == []


def test_names_at_the_length_limit(tmp_path):
    longest = tmp_path / ("L" * 255)
    atomic_write_text(longest, "ok")  # the temporary name is shortened to fit
    assert longest.read_text() == "ok" and listing(tmp_path) == [longest.name]
    wide = tmp_path / ("é" * 127)  # 254 bytes in UTF-8: the shortening cuts inside a character
    atomic_write_text(wide, "ok")
    assert wide.read_text() == "ok" and len(listing(tmp_path)) == 2


def test_check_delivers_at_the_callers_safe_point_and_blocks_nest():
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupts() as outer:
            with deferred_interrupts():
                os.kill(os.getpid(), signal.SIGINT)
            reached.append("inner block over: the signal passed to the outer one, not raised")
            outer.check()
            reached.append("never")
    assert reached == ["inner block over: the signal passed to the outer one, not raised"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ignore_forgets_signals_once_the_work_is_done():
    with deferred_interrupts() as deferred:
        os.kill(os.getpid(), signal.SIGINT)
        deferred.ignore()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
