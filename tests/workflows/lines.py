"""A stream that keeps what is written to it as lines, and is not a terminal (the progress rule's
off-terminal case: a log file, a pipe)."""


class Lines:
    def __init__(self):
        self.lines = []

    def write(self, text):
        self.lines += [t for t in text.split("\n") if t]

    def flush(self):
        pass

    def isatty(self):
        return False
