class _MsmigrateTorchVersion(str):
    """torch.__version__ (written by msmigrate): the torch release msmigrate's table reproduces ('2.13.0'), so
    version gates take the branch written for it. Like torch's TorchVersion it is a str that compares with a
    version string or tuple by release numbers ("2.13.0" >= "2.2" is True); pre-release tags are not ordered."""

    @staticmethod
    def _release(v):
        import re

        if isinstance(v, (tuple, list)):
            return tuple(int(p) for p in v)
        return tuple(int(p) for p in re.findall(r"\d+", str(v).split("+")[0].split("a")[0].split("b")[0].split("rc")[0]))

    def _cmp(self, other):
        a, b = self._release(self), self._release(other)
        n = max(len(a), len(b))
        a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
        return (a > b) - (a < b)

    def __lt__(self, other):
        return self._cmp(other) < 0

    def __le__(self, other):
        return self._cmp(other) <= 0

    def __gt__(self, other):
        return self._cmp(other) > 0

    def __ge__(self, other):
        return self._cmp(other) >= 0

    def __eq__(self, other):
        return self._cmp(other) == 0 if isinstance(other, (str, tuple, list)) else NotImplemented

    def __ne__(self, other):
        return not self == other

    __hash__ = str.__hash__
