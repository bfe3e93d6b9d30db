# The constants of the integration examples' model (tests/integration/make, cmake): a module
# that model.py imports, so that editing it must regenerate the project.
ROWS = 32
COLS = 64
SCALE = 2.0
