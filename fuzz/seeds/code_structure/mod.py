"""Module doc."""
import os
from x import y


@decorator
class A:
    def m(self):
        return 1

    def m(self, x):
        return x


def f():
    pass

if __name__ == "__main__":
    f()
