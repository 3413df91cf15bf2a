"""ZL000: the flake8 plugin's way to say that zlint could not lint a file.

No visitor reports it. The ``zlint`` command prints such files as ``zlint: error: PATH: reason``
and exits 2; inside flake8 a plugin can only yield findings, so :mod:`zlint.frontends.flake8`
yields this code at 1:1 with the reason. It is registered so that the code has a doc and obeys
flake8's ``--select``/``--extend-ignore``. Its doc shows flake8 output, not a linted example.
"""

code = "ZL000"
name = "file-not-linted"
summary = (
    "flake8 plugin: zlint could not lint this file (too large, too deeply nested, past its time budget, internal error)"
)
kind = "meta"
