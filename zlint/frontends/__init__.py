"""The ways in: the command line (`cli`) and the flake8 plugin (`flake8`). Both run
`zlint.engine.pipeline`; they only parse options and print."""
