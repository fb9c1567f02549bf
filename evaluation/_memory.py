"""Peak resident-set growth of this process during a call (Linux): ``rss = reset_peak()``
before, ``peak_growth(rss)`` bytes after. Standard library only (peer venvs import it too)."""


def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def reset_peak() -> int:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status("VmRSS")


def peak_growth(rss_before: int) -> int:
    return _status("VmHWM") - rss_before
