"""tests/peers/pymod/bitmap.py -- the little of PyPI's `bitmap` that tini's
run_inner_tests.py uses (Debian has no package of it): BitMap.fromstring
of a string of 0 and 1, most significant bit first, and nonzero(), the
positions of its 1 bits counted from the least significant (0)."""


class BitMap:
    def __init__(self, bits):
        self.bits = bits

    @classmethod
    def fromstring(cls, text):
        return cls(text)

    def nonzero(self):
        n = len(self.bits)
        return [i for i in range(n) if self.bits[n - 1 - i] == '1']
